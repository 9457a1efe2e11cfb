package nomad_test

import (
	"fmt"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/nomad/api"
)

// compareGroups compares, task group by task group and then the job's own
// fields, the job convert wrote with the job the agent stored. Every field
// the converted job sets must be stored with the same value: a pointer,
// interface, list or map that is not nil, or a plain value that is not its
// zero (inside a pointer, an interface, a list or a map, even the zero is
// compared: it was written on purpose). The agent may fill a field the
// converted job leaves unset — that is Nomad's defaulting of an unset
// field, the same for any submitted job — and such fields are recorded in
// filled (paths with [*] for the element). It may not add a group, a task,
// a list element or a map key the converted job has not got.
func compareGroups(converted, stored *api.Job, filled map[string]bool) []string {
	var out []string
	byName := map[string]*api.TaskGroup{}
	for _, g := range stored.TaskGroups {
		byName[*g.Name] = g
	}
	for _, g := range converted.TaskGroups {
		sg := byName[*g.Name]
		delete(byName, *g.Name)
		if sg == nil {
			out = append(out, fmt.Sprintf("TaskGroups[%s]: not in the stored job", *g.Name))
			continue
		}
		for _, task := range sg.Tasks {
			storedDefaultIdentity(task, g)
		}
		storedImpliedConstraints(sg, g)
		subset("TaskGroups["+*g.Name+"]", reflect.ValueOf(g).Elem(), reflect.ValueOf(sg).Elem(), false, &out, filled)
	}
	for name := range byName {
		out = append(out, fmt.Sprintf("TaskGroups[%s]: stored, not in the converted job", name))
	}
	cj, sj := *converted, *stored
	cj.TaskGroups, sj.TaskGroups = nil, nil
	subset("job", reflect.ValueOf(cj), reflect.ValueOf(sj), false, &out, filled)
	return out
}

// storedDefaultIdentity undoes the one move the agent makes in a field
// the converted job sets: Nomad stores the identity named "default" of a
// task's identities in Task.Identity and deletes it from Identities ("for
// backward compatibility": nomad/structs/structs.go Task.Canonicalize,
// v1.11.3), where the jobspec (api.Task: identity blocks) and the
// converted job keep it. It is put back at the converted index, so that
// its fields (env, file) are compared like any other.
func storedDefaultIdentity(stored *api.Task, g *api.TaskGroup) {
	if stored.Identity == nil || stored.Identity.Name != "default" {
		return
	}
	for _, task := range g.Tasks {
		if task.Name != stored.Name {
			continue
		}
		for i, wid := range task.Identities {
			if wid.Name == "default" && i <= len(stored.Identities) {
				stored.Identities = append(stored.Identities[:i:i], append([]*api.WorkloadIdentity{stored.Identity}, stored.Identities[i:]...)...)
				stored.Identity = nil
				return
			}
		}
	}
}

// storedImpliedConstraints undoes the other: the agent appends to a
// group's constraints those its tasks imply (the signals they need, Nomad
// service discovery, Vault, Consul, NUMA, CNI: jobImpliedConstraints,
// nomad/job_endpoint_hooks.go, v1.11.3), which a converted group without
// constraints shows as a filled field and one with constraints of its own
// as extra elements. Stored constraints on an implied attribute that the
// converted group does not have are dropped when the converted group has
// constraints (otherwise the field is compared as filled).
func storedImpliedConstraints(stored, g *api.TaskGroup) {
	if len(g.Constraints) == 0 {
		return
	}
	own := map[string]bool{}
	for _, c := range g.Constraints {
		own[c.LTarget+" "+c.Operand+" "+c.RTarget] = true
	}
	kept := stored.Constraints[:0:0]
	for _, c := range stored.Constraints {
		if own[c.LTarget+" "+c.Operand+" "+c.RTarget] || !impliedAttr.MatchString(c.LTarget) {
			kept = append(kept, c)
		}
	}
	stored.Constraints = kept
}

// impliedAttr: the attributes of jobImpliedConstraints (v1.11.3).
var impliedAttr = regexp.MustCompile(`^\$\{attr\.(os\.signals|nomad\.service_discovery|nomad\.version|vault\..*|consul\..*|kernel\.name|plugins\.cni\..*)\}$`)

var elemIndex = regexp.MustCompile(`\[[^\]]*\]`)

// subset checks that got holds want (see compareGroups); explicit: want
// was written on purpose even if it is its type's zero.
func subset(path string, want, got reflect.Value, explicit bool, out *[]string, filled map[string]bool) {
	unset := func() bool {
		switch want.Kind() {
		case reflect.Pointer, reflect.Interface:
			return want.IsNil()
		case reflect.Slice, reflect.Map:
			return want.Len() == 0
		case reflect.Struct:
			return false
		}
		return !explicit && want.IsZero()
	}
	if unset() {
		if !got.IsZero() {
			filled[elemIndex.ReplaceAllString(path, "[*]")] = true
		}
		return
	}
	differ := func(format string, args ...any) { *out = append(*out, path+": "+fmt.Sprintf(format, args...)) }
	switch want.Kind() {
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() {
			differ("converted %s, absent in the stored job", show(want.Elem()))
			return
		}
		if want.Elem().Type() != got.Elem().Type() {
			differ("converted %s, stored %s", show(want.Elem()), show(got.Elem()))
			return
		}
		subset(path, want.Elem(), got.Elem(), true, out, filled)
	case reflect.Struct:
		for i := 0; i < want.NumField(); i++ {
			if f := want.Type().Field(i); f.IsExported() {
				subset(path+"."+f.Name, want.Field(i), got.Field(i), false, out, filled)
			}
		}
	case reflect.Slice:
		if want.Len() != got.Len() {
			differ("converted %d element(s), stored %d: %s", want.Len(), got.Len(), show(got))
			return
		}
		for i := 0; i < want.Len(); i++ {
			subset(path+elemName(want.Index(i), i), want.Index(i), got.Index(i), true, out, filled)
		}
	case reflect.Map:
		for _, k := range want.MapKeys() {
			g := got.MapIndex(k)
			if !g.IsValid() {
				differ("key %v converted, absent in the stored job", k)
				continue
			}
			subset(fmt.Sprintf("%s[%v]", path, k), want.MapIndex(k), g, true, out, filled)
		}
		for _, k := range got.MapKeys() {
			if !want.MapIndex(k).IsValid() {
				differ("key %v stored, not in the converted job: %s", k, show(got.MapIndex(k)))
			}
		}
	default:
		if !reflect.DeepEqual(want.Interface(), got.Interface()) {
			differ("converted %s, stored %s", show(want), show(got))
		}
	}
}

// elemName names a list element by its Name field when it has one.
func elemName(v reflect.Value, i int) string {
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return fmt.Sprintf("[%d]", i)
		}
		v = v.Elem()
	}
	if v.Kind() == reflect.Struct {
		if f := v.FieldByName("Name"); f.IsValid() {
			if f.Kind() == reflect.Pointer && !f.IsNil() {
				f = f.Elem()
			}
			if f.Kind() == reflect.String && f.String() != "" {
				return "[" + f.String() + "]"
			}
		}
	}
	return fmt.Sprintf("[%d]", i)
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return "nothing"
	}
	return fmt.Sprintf("%#v", v.Interface())
}

// TestCompareGroupsCatches: the comparison of TestConvertEqualsRegistered
// fails on what it must catch — a value changed, a map key or a list
// element dropped or added, a task added — and passes what Nomad does to
// any job: a field left unset filled in, the default identity moved.
func TestCompareGroupsCatches(t *testing.T) {
	converted := func() *api.Job {
		return &api.Job{ID: new("j"), TaskGroups: []*api.TaskGroup{{
			Name:  new("worker"),
			Count: new(0),
			Tasks: []*api.Task{{
				Name: "main", Driver: "raw_exec", Env: map[string]string{"A": "1"},
				Config:     map[string]any{"args": []any{"-c", "x"}},
				Identities: []*api.WorkloadIdentity{{Name: "default", File: true}},
			}},
		}}}
	}
	cases := map[string]struct {
		change func(*api.Job)
		want   string // "" : no difference
	}{
		"same":           {func(*api.Job) {}, ""},
		"default filled": {func(j *api.Job) { j.Priority = new(50); j.TaskGroups[0].Tasks[0].KillTimeout = new(time.Second) }, ""},
		"identity moved": {func(j *api.Job) { tk := j.TaskGroups[0].Tasks[0]; tk.Identity, tk.Identities = tk.Identities[0], nil }, ""},
		"identity changed": {func(j *api.Job) {
			tk := j.TaskGroups[0].Tasks[0]
			tk.Identity, tk.Identities = &api.WorkloadIdentity{Name: "default"}, nil
		}, "Identities[default].File"},
		"value changed":   {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Env["A"] = "2" }, "Env[A]"},
		"zero dropped":    {func(j *api.Job) { j.TaskGroups[0].Count = nil }, "TaskGroups[worker].Count"},
		"key dropped":     {func(j *api.Job) { delete(j.TaskGroups[0].Tasks[0].Env, "A") }, "key A converted"},
		"key added":       {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Env["B"] = "1" }, "key B stored"},
		"element changed": {func(j *api.Job) { j.TaskGroups[0].Tasks[0].Config["args"] = []any{"-c", "y"} }, "Config[args][1]"},
		"task added":      {func(j *api.Job) { g := j.TaskGroups[0]; g.Tasks = append(g.Tasks, &api.Task{Name: "x"}) }, "Tasks: converted 1"},
		"group added":     {func(j *api.Job) { j.TaskGroups = append(j.TaskGroups, &api.TaskGroup{Name: new("ps")}) }, "TaskGroups[ps]: stored"},
		"job field":       {func(j *api.Job) { j.ID = new("k") }, "job.ID"},
	}
	for name, tc := range cases {
		stored := converted()
		tc.change(stored)
		got := compareGroups(converted(), stored, map[string]bool{})
		switch {
		case tc.want == "" && len(got) > 0:
			t.Errorf("%s: differences %q, want none", name, got)
		case tc.want != "" && (len(got) != 1 || !strings.Contains(got[0], tc.want)):
			t.Errorf("%s: differences %q, want one about %q", name, got, tc.want)
		}
	}
}
