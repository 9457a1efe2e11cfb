package pai

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// JavaScript's String(value), for the values PAI's Node.js rest-server
// turned into text: `result += value` in the <% %> renderer and the
// jobEnvs values. Values are the Go forms yamlValue produces: nil, bool,
// int64, *big.Int, float64, string, []any, map[string]any (ordered keys are
// not needed: objects print as "[object Object]").

func jsString(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	case int64:
		if v > maxSafeInt || v < -maxSafeInt {
			return jsNumber(float64(v))
		}
		return strconv.FormatInt(v, 10)
	case *big.Int:
		f, _ := new(big.Float).SetInt(v).Float64()
		return jsNumber(f)
	case float64:
		return jsNumber(v)
	case string:
		return v
	case []any:
		// Array.prototype.join(","): null and undefined become "".
		parts := make([]string, len(v))
		for i, e := range v {
			if e != nil {
				parts[i] = jsString(e)
			}
		}
		return strings.Join(parts, ",")
	case map[string]any:
		return "[object Object]"
	}
	return ""
}

// jsNumberText formats a JSON number literal the way JavaScript prints the
// number it parses to (1.0 → "1", 1e3 → "1000").
func jsNumberText(raw string) string {
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil && !math.IsInf(f, 0) {
		return raw
	}
	return jsNumber(f)
}

// jsNumber is Number.prototype.toString() (ECMA-262 Number::toString):
// the shortest round-tripping digits, fixed notation for exponents in
// (-7, 21], exponential notation otherwise.
func jsNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expText, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	exp, _ := strconv.Atoi(expText)
	k, n := len(digits), exp+1
	switch {
	case k <= n && n <= 21:
		return sign + digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return sign + digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return sign + "0." + strings.Repeat("0", -n) + digits
	}
	out := digits[:1]
	if k > 1 {
		out += "." + digits[1:]
	}
	if n-1 >= 0 {
		return sign + out + "e+" + strconv.Itoa(n-1)
	}
	return sign + out + "e-" + strconv.Itoa(1-n)
}
