// Command oracle formats JSON lines the way OPA's sprintf builtin hands its arguments to Go's
// fmt.Sprintf (OPA v1 topdown/strings.go builtinSprintf), one answer per line.
//
// Input, one JSON object a line: {"format": "...", "args": [...]}. An object {"$set": [...]}
// in args stands for a Rego set. Output, one JSON string a line: the formatted text.
//
// Numbers are read as json.Number, keeping their text as OPA's ast.Number does: an integer
// that fits Go's int is an int, a larger integer a *big.Int, any other number a float64 (or
// its text, when a float64 cannot hold it). A string is a string; any other value is its Rego
// text, as OPA's Term.String() writes it: strings quoted by strconv.Quote, numbers as their
// text, object keys and set elements in Rego's order, the empty set as "set()".
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
)

type line struct {
	Format string        `json:"format"`
	Args   []interface{} `json:"args"`
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		dec := json.NewDecoder(strings.NewReader(in.Text()))
		dec.UseNumber()
		var l line
		if err := dec.Decode(&l); err != nil {
			fmt.Fprintln(os.Stderr, "oracle: bad line:", err)
			os.Exit(2)
		}
		args := make([]interface{}, len(l.Args))
		for i, a := range l.Args {
			args[i] = goArg(a)
		}
		text, _ := json.Marshal(fmt.Sprintf(l.Format, args...))
		out.Write(text)
		out.WriteByte('\n')
		out.Flush() // one answer per line, as it is asked for
	}
	if err := in.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "oracle:", err)
		os.Exit(2)
	}
}

// goArg is the value builtinSprintf passes for one element of the argument array.
func goArg(v interface{}) interface{} {
	switch x := v.(type) {
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return int(i)
		}
		if b, ok := new(big.Int).SetString(string(x), 10); ok {
			return b
		}
		if f, err := x.Float64(); err == nil {
			return f
		}
		return string(x)
	case string:
		return x
	default:
		return regoText(v)
	}
}

func regoText(v interface{}) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return string(x)
	case string:
		return strconv.Quote(x)
	case []interface{}:
		return "[" + joined(x) + "]"
	case map[string]interface{}:
		if elems, ok := x["$set"]; ok && len(x) == 1 {
			items := append([]interface{}(nil), elems.([]interface{})...)
			if len(items) == 0 {
				return "set()"
			}
			sort.Slice(items, func(i, j int) bool { return compare(items[i], items[j]) < 0 })
			return "{" + joined(items) + "}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + regoText(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	panic(fmt.Sprintf("oracle: unexpected value %#v", v))
}

func joined(items []interface{}) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = regoText(it)
	}
	return strings.Join(parts, ", ")
}

// compare is Rego's order for the scalars a generated set holds: null < booleans < numbers <
// strings, numbers by value, strings by bytes.
func compare(a, b interface{}) int {
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case json.Number:
		fx, _ := new(big.Float).SetString(string(x))
		fy, _ := new(big.Float).SetString(string(b.(json.Number)))
		return fx.Cmp(fy)
	case string:
		return strings.Compare(x, b.(string))
	}
	return 0
}

func rank(v interface{}) int {
	switch v.(type) {
	case nil:
		return 0
	case bool:
		return 1
	case json.Number:
		return 2
	case string:
		return 3
	}
	panic(fmt.Sprintf("oracle: a set holds scalars only, not %#v", v))
}
