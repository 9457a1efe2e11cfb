package plugin

import (
	"context"
	"errors"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// sentinels are the errors whose identity (errors.Is) crosses the wire, by
// name.
var sentinels = map[string]error{
	"not_found":   drivers.ErrNotFound,
	"unsupported": drivers.ErrUnsupported,
	"unavailable": drivers.ErrUnavailable,
	"canceled":    context.Canceled,
	"deadline":    context.DeadlineExceeded,
}

var sentinelCodes = map[string]codes.Code{
	"not_found":   codes.NotFound,
	"unsupported": codes.Unimplemented,
	"unavailable": codes.Unavailable,
	"canceled":    codes.Canceled,
	"deadline":    codes.DeadlineExceeded,
}

// errorToStatus encodes err for the wire: hcl.Diagnostics travel whole as a
// status detail, sentinel errors by name, and the message always.
func errorToStatus(err error) error {
	if err == nil {
		return nil
	}
	code := codes.Unknown
	var details []*pb.ErrorKind
	for name, s := range sentinels {
		if errors.Is(err, s) {
			code = sentinelCodes[name]
			details = append(details, &pb.ErrorKind{Kind: name})
		}
	}
	st := status.New(code, err.Error())
	var diags hcl.Diagnostics
	if errors.As(err, &diags) && len(diags) > 0 {
		if st2, e := st.WithDetails(diagsToPB(diags)); e == nil {
			st = st2
		}
	}
	for _, d := range details {
		if st2, e := st.WithDetails(d); e == nil {
			st = st2
		}
	}
	return st.Err()
}

// remoteError is an error that came back from a plugin: its text, the
// diagnostics it carries and the sentinel errors it wraps. The text is the
// driver's own (a *diag.Error joins its diagnostics differently from a bare
// hcl.Diagnostics), so a plugin's error reads as the built-in one does.
type remoteError struct {
	msg   string
	diags hcl.Diagnostics
	kind  []error
}

func (e *remoteError) Error() string { return e.msg }

// Unwrap gives errors.As the diagnostics and errors.Is the kinds.
func (e *remoteError) Unwrap() []error {
	if e.diags == nil {
		return e.kind
	}
	return append([]error{e.diags}, e.kind...)
}

// statusToError decodes what errorToStatus encoded. An error with
// diagnostics keeps them exactly as the driver made them (errors.As).
func statusToError(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	var kinds []error
	var diags hcl.Diagnostics
	for _, d := range st.Details() {
		switch v := d.(type) {
		case *pb.Diagnostics:
			diags = diagsFromPB(v)
		case *pb.ErrorKind:
			if s, ok := sentinels[v.Kind]; ok {
				kinds = append(kinds, s)
			}
		}
	}
	switch st.Code() {
	case codes.Unavailable:
		if len(kinds) == 0 {
			kinds = append(kinds, drivers.ErrUnavailable)
		}
	case codes.Canceled:
		if len(kinds) == 0 {
			kinds = append(kinds, context.Canceled)
		}
	}
	return &remoteError{msg: st.Message(), diags: diags, kind: kinds}
}

func diagsToPB(diags hcl.Diagnostics) *pb.Diagnostics {
	out := &pb.Diagnostics{}
	for _, d := range diags {
		pd := &pb.Diagnostic{Summary: d.Summary, Detail: d.Detail}
		switch d.Severity {
		case hcl.DiagError:
			pd.Severity = pb.Diagnostic_ERROR
		case hcl.DiagWarning:
			pd.Severity = pb.Diagnostic_WARNING
		}
		if r := d.Subject; r != nil {
			pd.Subject = &pb.Range{Filename: r.Filename,
				StartLine: int32(r.Start.Line), StartColumn: int32(r.Start.Column), StartByte: int32(r.Start.Byte),
				EndLine: int32(r.End.Line), EndColumn: int32(r.End.Column), EndByte: int32(r.End.Byte)}
		}
		out.Diagnostics = append(out.Diagnostics, pd)
	}
	return out
}

func diagsFromPB(in *pb.Diagnostics) hcl.Diagnostics {
	var out hcl.Diagnostics
	for _, pd := range in.Diagnostics {
		d := &hcl.Diagnostic{Summary: pd.Summary, Detail: pd.Detail}
		switch pd.Severity {
		case pb.Diagnostic_ERROR:
			d.Severity = hcl.DiagError
		case pb.Diagnostic_WARNING:
			d.Severity = hcl.DiagWarning
		}
		if r := pd.Subject; r != nil {
			d.Subject = &hcl.Range{Filename: r.Filename,
				Start: hcl.Pos{Line: int(r.StartLine), Column: int(r.StartColumn), Byte: int(r.StartByte)},
				End:   hcl.Pos{Line: int(r.EndLine), Column: int(r.EndColumn), Byte: int(r.EndByte)}}
		}
		out = append(out, d)
	}
	return out
}
