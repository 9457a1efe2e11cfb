package plugin

import (
	"fmt"
	"reflect"
)

// fill sets every exported field of v (a pointer) to a distinct non-zero
// value, recursively, so that a round trip that drops any field shows up in
// a diff. Free-form maps get a small nested value of every JSON type.
func fill(v any) {
	n := 0
	fillValue(reflect.ValueOf(v).Elem(), &n)
}

func fillValue(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d 'q' $x {{y}} %%", *n))
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		// a fraction no decimal rendering with fewer digits gives back
		v.SetFloat(float64(*n) + 1.0/3)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fillValue(p.Elem(), n)
		v.Set(p)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				fillValue(v.Field(i), n)
			}
		}
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fillValue(s.Index(i), n)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if v.Type().Elem().Kind() == reflect.Interface {
			m.SetMapIndex(reflect.ValueOf("k"), reflect.ValueOf(map[string]any{
				"int": *n, "float": 1.5, "str": "v", "list": []any{1, "a", true, nil}, "nested": map[string]any{"x": 2},
			}))
		} else {
			for i := 0; i < 2; i++ {
				k := reflect.New(v.Type().Key()).Elem()
				fillValue(k, n)
				e := reflect.New(v.Type().Elem()).Elem()
				fillValue(e, n)
				m.SetMapIndex(k, e)
			}
		}
		v.Set(m)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprintf("any%d", *n)))
	default:
		// A kind the model never held before: give it a value here and a
		// wire form in wire_*.go.
		panic("fill: unhandled kind " + v.Kind().String() + " (" + v.Type().String() + ")")
	}
}

// clearRanges zeroes every hcl.Range inside v (a pointer): a config built in
// code has none.
func clearRanges(v any) {
	clearRangesValue(reflect.ValueOf(v).Elem())
}

func clearRangesValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			clearRangesValue(v.Elem())
		}
	case reflect.Struct:
		if v.Type().String() == "hcl.Range" {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				clearRangesValue(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			clearRangesValue(v.Index(i))
		}
	}
}
