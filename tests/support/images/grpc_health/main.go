// grpc_health is the test image's server: grpc.health.v1 on -port, reporting SERVING for the
// overall server ("") and for -service until the -unhealthy-file exists, then NOT_SERVING.
// The status follows the file both ways, so a test flips it by creating or removing the file
// (through a hostPath volume or an exec in the container).
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func main() {
	port := flag.Int("port", 50051, "TCP port to serve grpc.health.v1 on")
	unhealthyFile := flag.String("unhealthy-file", "/tmp/unhealthy", "while this file exists, the status is NOT_SERVING")
	service := flag.String("service", "denolet.test", "named service reported besides the server-wide one (\"\")")
	poll := flag.Duration("poll", 200*time.Millisecond, "how often the file is checked")
	flag.Parse()

	lis, err := net.Listen("tcp", fmt.Sprintf(":%d", *port))
	if err != nil {
		log.Fatalf("cannot listen on port %d: %v", *port, err)
	}
	srv := grpc.NewServer()
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)

	go func() {
		last := healthpb.HealthCheckResponse_UNKNOWN
		for {
			status := healthpb.HealthCheckResponse_SERVING
			if _, err := os.Stat(*unhealthyFile); err == nil {
				status = healthpb.HealthCheckResponse_NOT_SERVING
			}
			if status != last {
				log.Printf("status %v", status)
				last = status
			}
			hs.SetServingStatus("", status)
			hs.SetServingStatus(*service, status)
			time.Sleep(*poll)
		}
	}()

	// As PID 1 the process gets no default signal actions, so TERM must be handled here.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-stop
		log.Printf("stopping")
		srv.Stop()
	}()

	log.Printf("serving grpc.health.v1 on :%d (unhealthy while %s exists)", *port, *unhealthyFile)
	if err := srv.Serve(lis); err != nil {
		log.Fatalf("serve: %v", err)
	}
}
