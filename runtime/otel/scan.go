package otel

// scan.go: the few members of a request's params the extension reads (the
// tool or prompt name, a resource URI, the trace context and protocol
// version in _meta), found by a scan of the top level that copies nothing
// else: arguments are skipped unread.

// params is what the extension reads of a request's params: names and the
// trace context, never arguments.
type params struct {
	name, uri                   string
	traceparent, tracestate     string
	baggage, version            string
	hasName, hasURI, hasVersion bool
}

// readParams reads p's members; a malformed params (the core refuses it)
// leaves the rest unread.
func readParams(b []byte, p *params) {
	eachMember(b, func(key, val []byte) {
		switch string(key) {
		case "name":
			p.name, p.hasName = unquote(val)
		case "uri":
			p.uri, p.hasURI = unquote(val)
		case "_meta":
			eachMember(val, func(key, val []byte) {
				switch string(key) {
				case "traceparent":
					p.traceparent, _ = unquote(val)
				case "tracestate":
					p.tracestate, _ = unquote(val)
				case "baggage":
					p.baggage, _ = unquote(val)
				case "io.modelcontextprotocol/protocolVersion":
					p.version, p.hasVersion = unquote(val)
				}
			})
		}
	})
}

// eachMember calls f with the raw key (without quotes, escapes left as
// they are) and raw value of each member of the JSON object b, stopping at
// the first malformed byte.
func eachMember(b []byte, f func(key, val []byte)) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return
	}
	i = skipSpace(b, i+1)
	for i < len(b) && b[i] == '"' {
		end := skipString(b, i)
		if end < 0 {
			return
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return
		}
		f(key, b[i:vend])
		i = skipSpace(b, vend)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"'), or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the value starting at b[i], or -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = skipString(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// unquote returns the JSON string v's value; ok is false when v is not a
// string or has escapes (names, URIs and trace headers have none; one that
// does is left unread rather than decoded).
func unquote(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c == '\\' || c < 0x20 {
			return "", false
		}
	}
	return string(s), true
}
