package kubeflow

import (
	"errors"
	"math/big"
	"strings"
)

// ErrQuantity is returned for text that is not a Kubernetes quantity.
var ErrQuantity = errors.New("not a Kubernetes quantity")

// binarySuffixes and decimalSuffixes are the suffixes of
// k8s.io/apimachinery/pkg/api/resource (Quantity): binary SI powers of 1024,
// decimal SI powers of 1000, plus the e<exp> decimal exponent form.
var binarySuffixes = map[string]int64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60}

var decimalExp = map[string]int{"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}

// ParseQuantity parses a Kubernetes quantity ("500m", "2", "0.5", "4Gi",
// "1000M", "1e3") into an exact rational number of base units (cores,
// bytes, devices).
func ParseQuantity(s string) (*big.Rat, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 64 {
		return nil, ErrQuantity
	}
	// Split the number from the suffix: the number is sign, digits and at
	// most one dot.
	i := 0
	if s[0] == '+' || s[0] == '-' {
		i++
	}
	digits, dots := 0, 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		if s[i] == '.' {
			dots++
		} else {
			digits++
		}
		i++
	}
	if digits == 0 || dots > 1 {
		return nil, ErrQuantity
	}
	num, suffix := s[:i], s[i:]
	v, ok := new(big.Rat).SetString(num)
	if !ok {
		return nil, ErrQuantity
	}
	if m, ok := binarySuffixes[suffix]; ok {
		return v.Mul(v, new(big.Rat).SetInt64(m)), nil
	}
	exp, ok := decimalExp[suffix]
	if !ok {
		if len(suffix) < 2 || (suffix[0] != 'e' && suffix[0] != 'E') {
			return nil, ErrQuantity
		}
		e, err := parseExp(suffix[1:])
		if err != nil {
			return nil, err
		}
		exp = e
	}
	p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil)
	if exp >= 0 {
		return v.Mul(v, new(big.Rat).SetInt(p)), nil
	}
	return v.Quo(v, new(big.Rat).SetInt(p)), nil
}

func parseExp(s string) (int, error) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if s == "" || len(s) > 3 {
		return 0, ErrQuantity
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, ErrQuantity
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// ceilInt64 rounds q·scale up to an integer, as Kubernetes rounds quantities
// up (Quantity.Value, MilliValue): a task never gets less than it asked for.
// ok is false when the result does not fit an int64.
func ceilInt64(q *big.Rat, scale *big.Rat) (int64, bool) {
	v := new(big.Rat).Mul(q, scale)
	n := new(big.Int).Quo(v.Num(), v.Denom())
	if new(big.Rat).SetInt(n).Cmp(v) < 0 {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() {
		return 0, false
	}
	return n.Int64(), true
}

var (
	scaleMilli = big.NewRat(1000, 1)
	scaleOne   = big.NewRat(1, 1)
	scaleMiB   = big.NewRat(1, 1<<20)
)
