package plugin

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"github.com/jobshift/jobshift/translate"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// GRPCClient is a drivers.Driver backed by a plugin (the host side).
type GRPCClient struct {
	client  pb.DriverClient
	name    string
	version string
	// protocol is the negotiated protocol version (wire_version.go).
	protocol int
	// Warn receives the warnings the plugin sent back with a Render or
	// Submit (drivers.Config.Report of the host's config); nil drops them.
	Warn func(hcl.Diagnostics)
}

var _ drivers.Driver = (*GRPCClient)(nil)

func newGRPCClient(ctx context.Context, c pb.DriverClient, protocol int) (*GRPCClient, error) {
	info, err := c.Info(ctx, &pb.InfoRequest{})
	if err != nil {
		return nil, fmt.Errorf("plugin info: %w", statusToError(err))
	}
	return &GRPCClient{client: c, name: info.Name, version: info.Version, protocol: protocol}, nil
}

// Name is the driver name the plugin reported.
func (c *GRPCClient) Name() string { return c.name }

// Version is the driver version the plugin reported.
func (c *GRPCClient) Version() string { return c.version }

func (c *GRPCClient) Render(ctx context.Context, p *translate.Plan) (*drivers.Artifact, error) {
	wp, err := planFor(p, c.protocol, c.name)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Render(ctx, &pb.PlanRequest{Plan: wp})
	if err != nil {
		return nil, statusToError(err)
	}
	c.warn(resp.GetWarnings())
	return artifactFromPB(resp), nil
}

func (c *GRPCClient) Submit(ctx context.Context, p *translate.Plan) (drivers.Handle, error) {
	wp, err := planFor(p, c.protocol, c.name)
	if err != nil {
		return drivers.Handle{}, err
	}
	resp, err := c.client.Submit(ctx, &pb.PlanRequest{Plan: wp})
	if err != nil {
		return drivers.Handle{}, statusToError(err)
	}
	c.warn(resp.GetWarnings())
	return handleFromPB(resp.Handle), nil
}

// warn hands the plugin's warnings to Warn.
func (c *GRPCClient) warn(ws *pb.Diagnostics) {
	if ws != nil && c.Warn != nil && len(ws.Diagnostics) > 0 {
		c.Warn(diagsFromPB(ws))
	}
}

// Watch relays the plugin's event stream. If the stream breaks before the
// final event (the plugin crashed, say), one last event says so, without
// Final, and the channel closes: callers never wait forever.
func (c *GRPCClient) Watch(ctx context.Context, h drivers.Handle) (<-chan drivers.Event, error) {
	stream, err := c.client.Watch(ctx, &pb.HandleRequest{Handle: handleToPB(h)})
	if err != nil {
		return nil, statusToError(err)
	}
	if err := accepted(stream); err != nil {
		return nil, err
	}
	ch := make(chan drivers.Event, 16)
	go func() {
		defer close(ch)
		for {
			e, err := stream.Recv()
			if err == io.EOF {
				return
			}
			if err != nil {
				if ctx.Err() == nil {
					ch <- drivers.Event{Time: time.Now(), Message: fmt.Sprintf("plugin %s: watch stream ended: %v", c.name, statusToError(err))}
				}
				return
			}
			select {
			case ch <- eventFromPB(e):
			case <-ctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

func (c *GRPCClient) Stop(ctx context.Context, h drivers.Handle) error {
	_, err := c.client.Stop(ctx, &pb.HandleRequest{Handle: handleToPB(h)})
	return statusToError(err)
}

// Inspect asks the plugin for a snapshot (jobshift status). A plugin built
// before the protocol had Inspect, or whose driver keeps no state another
// process can read, answers UNIMPLEMENTED: that is ErrUnsupported with a
// message saying what still works.
func (c *GRPCClient) Inspect(ctx context.Context, h drivers.Handle) (*drivers.Status, error) {
	st, err := c.client.Inspect(ctx, &pb.HandleRequest{Handle: handleToPB(h)})
	if status.Code(err) == codes.Unimplemented {
		return nil, fmt.Errorf("%s: plugin %s %s cannot show a job without following it (its protocol has no Inspect, or its driver keeps no state to read; update the plugin, or use status -follow): %w",
			h, c.name, c.version, drivers.ErrUnsupported)
	}
	if err != nil {
		return nil, statusToError(err)
	}
	out := statusFromPB(st)
	if out.Handle == "" {
		out.Handle = h.String()
	}
	return out, nil
}

var _ drivers.Inspector = (*GRPCClient)(nil)

// Logs returns a reader over the plugin's log stream; a broken stream
// surfaces as the reader's error.
func (c *GRPCClient) Logs(ctx context.Context, h drivers.Handle, opts drivers.LogOptions) (io.ReadCloser, error) {
	ctx, cancel := context.WithCancel(ctx)
	stream, err := c.client.Logs(ctx, &pb.LogsRequest{Handle: handleToPB(h), Task: taskRefToPB(opts.Task),
		Stderr: opts.Stderr, Follow: opts.Follow})
	if err != nil {
		cancel()
		return nil, statusToError(err)
	}
	if err := accepted(stream); err != nil {
		cancel()
		return nil, err
	}
	pr, pw := io.Pipe()
	go func() {
		for {
			m, err := stream.Recv()
			if err == io.EOF {
				pw.Close()
				return
			}
			if err != nil {
				pw.CloseWithError(statusToError(err))
				return
			}
			if _, err := pw.Write(m.Data); err != nil {
				return
			}
		}
	}()
	return &cancelReadCloser{PipeReader: pr, cancel: cancel}, nil
}

// accepted waits for the server's verdict on a streaming call: the accepted
// header, or the error status the driver returned.
func accepted(stream grpc.ClientStream) error {
	md, err := stream.Header()
	if err != nil {
		return statusToError(err)
	}
	if len(md.Get(acceptedKey)) > 0 {
		return nil
	}
	// Trailers-only response: the call failed; RecvMsg yields the status.
	if err := stream.RecvMsg(new(pb.Event)); err != nil && err != io.EOF {
		return statusToError(err)
	}
	return fmt.Errorf("plugin ended the stream without accepting the call")
}

type cancelReadCloser struct {
	*io.PipeReader
	cancel context.CancelFunc
}

func (r *cancelReadCloser) Close() error {
	r.cancel()
	return r.PipeReader.Close()
}
