package plugin

import (
	"context"
	"io"

	"github.com/jobshift/jobshift/drivers"
	pb "github.com/jobshift/jobshift/plugin/proto"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// logChunkSize bounds one Logs message; gRPC's default limit is 4 MiB.
const logChunkSize = 32 << 10

// acceptedKey marks, in a streaming call's header, that the driver accepted
// the call; an error before any event arrives as the status instead. This is
// how Watch and Logs return their errors from the call, not the stream.
const acceptedKey = "jobshift-accepted"

func acceptedHeader() metadata.MD { return metadata.Pairs(acceptedKey, "1") }

// grpcServer serves a drivers.Driver over gRPC (the plugin side).
type grpcServer struct {
	pb.UnimplementedDriverServer
	impl     drivers.Driver
	version  string
	warnings *Warnings
}

func (s *grpcServer) Info(context.Context, *pb.InfoRequest) (*pb.InfoResponse, error) {
	return &pb.InfoResponse{Name: s.impl.Name(), Version: s.version}, nil
}

func (s *grpcServer) Render(ctx context.Context, req *pb.PlanRequest) (*pb.RenderResponse, error) {
	p, err := PlanFromPB(req.Plan)
	if err != nil {
		return nil, errorToStatus(err)
	}
	var a *drivers.Artifact
	ws, err := s.warnings.during(func() (err error) { a, err = s.impl.Render(ctx, p); return err })
	if err != nil {
		return nil, errorToStatus(err)
	}
	resp := artifactToPB(a)
	if len(ws) > 0 {
		resp.Warnings = diagsToPB(ws)
	}
	return resp, nil
}

func (s *grpcServer) Submit(ctx context.Context, req *pb.PlanRequest) (*pb.SubmitResponse, error) {
	p, err := PlanFromPB(req.Plan)
	if err != nil {
		return nil, errorToStatus(err)
	}
	var h drivers.Handle
	ws, err := s.warnings.during(func() (err error) { h, err = s.impl.Submit(ctx, p); return err })
	if err != nil {
		return nil, errorToStatus(err)
	}
	resp := &pb.SubmitResponse{Handle: handleToPB(h)}
	if len(ws) > 0 {
		resp.Warnings = diagsToPB(ws)
	}
	return resp, nil
}

func (s *grpcServer) Watch(req *pb.HandleRequest, stream pb.Driver_WatchServer) error {
	ch, err := s.impl.Watch(stream.Context(), handleFromPB(req.Handle))
	if err != nil {
		return errorToStatus(err)
	}
	if err := stream.SendHeader(acceptedHeader()); err != nil {
		return err
	}
	for e := range ch {
		if err := stream.Send(eventToPB(e)); err != nil {
			// The host went away; drain so the driver's sender never blocks.
			go func() {
				for range ch {
				}
			}()
			return err
		}
	}
	return nil
}

func (s *grpcServer) Stop(ctx context.Context, req *pb.HandleRequest) (*pb.StopResponse, error) {
	if err := s.impl.Stop(ctx, handleFromPB(req.Handle)); err != nil {
		return nil, errorToStatus(err)
	}
	return &pb.StopResponse{}, nil
}

// Inspect answers with the driver's snapshot; a driver that cannot take
// one (no drivers.Inspector) answers UNIMPLEMENTED, as a plugin built
// before Inspect existed does, so the host treats both alike.
func (s *grpcServer) Inspect(ctx context.Context, req *pb.HandleRequest) (*pb.Status, error) {
	in, ok := s.impl.(drivers.Inspector)
	if !ok {
		return nil, status.Errorf(codes.Unimplemented, "driver %s takes no status snapshots", s.impl.Name())
	}
	st, err := in.Inspect(ctx, handleFromPB(req.Handle))
	if err != nil {
		return nil, errorToStatus(err)
	}
	return statusToPB(st), nil
}

func (s *grpcServer) Logs(req *pb.LogsRequest, stream pb.Driver_LogsServer) error {
	rc, err := s.impl.Logs(stream.Context(), handleFromPB(req.Handle),
		drivers.LogOptions{Task: taskRefFromPB(req.Task), Stderr: req.Stderr, Follow: req.Follow})
	if err != nil {
		return errorToStatus(err)
	}
	defer rc.Close()
	if err := stream.SendHeader(acceptedHeader()); err != nil {
		return err
	}
	buf := make([]byte, logChunkSize)
	for {
		n, rerr := rc.Read(buf)
		if n > 0 {
			if err := stream.Send(&pb.LogChunk{Data: append([]byte(nil), buf[:n]...)}); err != nil {
				return err
			}
		}
		if rerr == io.EOF {
			return nil
		}
		if rerr != nil {
			return errorToStatus(rerr)
		}
	}
}
