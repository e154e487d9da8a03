"""JSON Schema: ``json.verify_schema`` and ``json.match_schema`` (drafts 4, 6 and 7, as OPA's
gojsonschema). Validation uses ``jsonschema`` (imported on first use, never on a warm hook
that does not validate). A violation is reported in gojsonschema's words (``type``, ``field``,
``desc``) for the common keywords; one whose wording hookgate does not know, or several
violations at once (whose order gojsonschema decides), is refused as ``unsupported:`` rather
than reported differently from OPA.
"""

from __future__ import annotations

from hookgate.builtins.registry import BuiltinError, builtin
from hookgate.lang.values import RegoSet, to_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_TYPES = ("array", "boolean", "integer", "number", "null", "object", "string")


def _doc(name: str, pos: int, x: Any) -> Any:
    """A JSON document given as a value or as JSON text."""
    import json

    if type(x) is str:
        try:
            return json.loads(x)
        except ValueError as exc:
            raise BuiltinError(f"{name}: operand {pos}: invalid JSON: {exc}") from None
    if type(x) is RegoSet or type(x) is dict or type(x) is list:
        return to_json(x)
    return x


def _validator(name: str, schema: Any) -> Any:
    """A validator for ``schema``, or a BuiltinError in gojsonschema's words."""
    import jsonschema

    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft7Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        problem = _schema_problem(name, exc)
        raise BuiltinError(
            problem if problem.startswith("unsupported:") else f"{name}: {problem}"
        ) from None
    return cls(schema)


def _schema_problem(name: str, exc: Any) -> str:
    if exc.path and exc.path[-1] == "type" and isinstance(exc.instance, str):
        return (
            f"has a primitive type that is NOT VALID -- given: /{exc.instance}/ Expected valid "
            f"values are:[{' '.join(_TYPES)}]"
        )
    return f"unsupported: {name} wording this schema error as OPA does ({exc.message})"


@builtin("json.verify_schema", "schema", 1)
def verify_schema(schema: Any) -> list:
    """``[true, null]`` if ``schema`` (a value or JSON text) is a valid JSON Schema, else
    ``[false, error]``."""
    try:
        _validator("json.verify_schema", _doc("json.verify_schema", 1, schema))
    except BuiltinError as exc:
        if str(exc).startswith("unsupported:"):
            raise
        return [False, str(exc).split(": ", 1)[1]]
    return [True, None]


@builtin("json.match_schema", "schema", 2)
def match_schema(document: Any, schema: Any) -> list:
    """``[true, []]`` if ``document`` matches ``schema`` (each a value or JSON text), else
    ``[false, [{"error", "type", "field", "desc"}]]`` (gojsonschema's wording)."""
    name = "json.match_schema"
    validator = _validator(name, _doc(name, 2, schema))
    errors = list(validator.iter_errors(_doc(name, 1, document)))
    if not errors:
        return [True, []]
    if len(errors) > 1:
        raise BuiltinError(
            f"unsupported: {name} reporting {len(errors)} violations (gojsonschema orders them)"
        )
    return [False, [_violation(errors[0])]]


def _violation(err: Any) -> dict:
    field = ".".join(str(p) for p in err.absolute_path) or "(root)"
    v, arg, inst = err.validator, err.validator_value, err.instance
    if v == "type" and isinstance(arg, str):
        kind, desc = "invalid_type", f"Invalid type. Expected: {arg}, given: {_type(inst)}"
    elif v == "required":
        missing = err.message.split("'")[1] if "'" in err.message else ""
        kind, desc = "required", f"{missing} is required"
    elif v == "enum":
        allowed = ", ".join(_json(a) for a in arg)
        kind, desc = "enum", f"{field} must be one of the following: {allowed}"
    elif v in _BOUNDS:
        kind, text = _BOUNDS[v]
        desc = text.format(_json(arg))
    elif v == "pattern":
        kind, desc = "pattern", f"Does not match pattern '{arg}'"
    elif v == "additionalProperties" and arg is False:
        extra = err.message.split("'")[1] if "'" in err.message else ""
        kind, desc = (
            "additional_property_not_allowed",
            f"Additional property {extra} is not allowed",
        )
    else:
        raise BuiltinError(f"unsupported: json.match_schema wording a {v!r} violation as OPA does")
    return {"error": f"{field}: {desc}", "type": kind, "field": field, "desc": desc}


_BOUNDS = {
    "minimum": ("number_gte", "Must be greater than or equal to {}"),
    "maximum": ("number_lte", "Must be less than or equal to {}"),
    "exclusiveMinimum": ("number_gt", "Must be greater than {}"),
    "exclusiveMaximum": ("number_lt", "Must be less than {}"),
    "minLength": ("string_gte", "String length must be greater than or equal to {}"),
    "maxLength": ("string_lte", "String length must be less than or equal to {}"),
    "minItems": ("array_min_items", "Array must have at least {} items"),
    "maxItems": ("array_max_items", "Array must have at most {} items"),
    "multipleOf": ("multiple_of", "Must be a multiple of {}"),
}


def _type(x: Any) -> str:
    t = type(x)
    if t is bool:
        return "boolean"
    if t is int or (t is float and x.is_integer()):
        return "integer"
    return {float: "number", str: "string", dict: "object", list: "array"}.get(t, "null")


def _json(x: Any) -> str:
    import json

    return json.dumps(x, separators=(",", ":"))
