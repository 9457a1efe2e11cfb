package drivers

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/jobshift/jobshift/translate"
)

type fakeDriver struct{ name string }

func (f fakeDriver) Name() string { return f.name }
func (fakeDriver) Render(context.Context, *translate.Plan) (*Artifact, error) {
	return nil, ErrUnsupported
}
func (fakeDriver) Submit(context.Context, *translate.Plan) (Handle, error) {
	return Handle{}, ErrUnsupported
}
func (fakeDriver) Watch(context.Context, Handle) (<-chan Event, error) { return nil, ErrUnsupported }
func (fakeDriver) Stop(context.Context, Handle) error                  { return ErrUnsupported }
func (fakeDriver) Logs(context.Context, Handle, LogOptions) (io.ReadCloser, error) {
	return nil, ErrUnsupported
}

func TestRegistry(t *testing.T) {
	Register("test-registry-fake", func(Config) (Driver, error) { return fakeDriver{"test-registry-fake"}, nil })
	d, err := New("test-registry-fake", Config{})
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if d.Name() != "test-registry-fake" {
		t.Errorf("Name() = %q", d.Name())
	}
	if _, err := New("no-such-driver", Config{}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("New(unknown) error = %v, want ErrUnavailable", err)
	}
	found := false
	for _, n := range Names() {
		found = found || n == "test-registry-fake"
	}
	if !found {
		t.Errorf("Names() = %v, missing the registered driver", Names())
	}
	defer func() {
		if r := recover(); r == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	Register("test-registry-fake", nil)
}
