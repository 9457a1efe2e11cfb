package plugin

import (
	"context"
	"testing"
	"time"

	pb "github.com/jobshift/jobshift/plugin/proto"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// The plugin's socket (a unix socket other local users may reach) takes
// only the client holding the certificate made for this connection: a
// plain gRPC client calling the driver on it is refused, while jobshift's
// own connection works.
func TestPluginSocketNeedsClientCert(t *testing.T) {
	dir := pluginDir(t, "fake")
	ext, err := OpenDriver("fake", []string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Close()
	if _, err := ext.Render(context.Background(), samplePlan()); err != nil {
		t.Fatalf("jobshift's own connection: %v", err)
	}
	addr := ext.client.ReattachConfig().Addr
	conn, err := grpc.NewClient(addr.Network()+"://"+addr.String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if info, err := pb.NewDriverClient(conn).Info(ctx, &pb.InfoRequest{}); err == nil {
		t.Errorf("a client without the connection's certificate called the plugin at %s: %v", addr, info)
	}
}
