package hookgate.x
