// csi-mock: a CSI driver for the e2e suites, served by csi-test/v5's driver package (the
// gRPC server its mock driver runs on), and a registrar written on k8s.io/kubelet's
// pluginregistration API, as node-driver-registrar does it.
//
//	csi-mock driver --endpoint /csi/csi.sock --name mock.csi.denolet.test --node-id n1 --data /data
//	csi-mock registrar --name mock.csi.denolet.test --socket /registration/mock-reg.sock \
//	    --kubelet-registration-path <root-dir>/plugins/mock.csi.denolet.test/csi.sock
//
// Volumes are directories under --data: CreateVolume makes one, NodePublishVolume bind-mounts
// it on the target (an inline ephemeral volume gets a fresh one), NodeUnpublishVolume
// unmounts. Every RPC is appended to <data>/calls.log ("NodeStageVolume <volume id> <path>",
// with "secrets=k=v,..." last when the request had secrets), so a test on the host can check
// the sequence.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/container-storage-interface/spec/lib/go/csi"
	"github.com/kubernetes-csi/csi-test/v5/driver"
	"google.golang.org/grpc"
	registerapi "k8s.io/kubelet/pkg/apis/pluginregistration/v1"
)

type mock struct {
	csi.UnimplementedIdentityServer
	csi.UnimplementedControllerServer
	csi.UnimplementedNodeServer
	name, nodeID, data string
	mu                 sync.Mutex
}

func (m *mock) record(rpc string, parts ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, err := os.OpenFile(filepath.Join(m.data, "calls.log"), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		log.Printf("cannot record %s: %v", rpc, err)
		return
	}
	defer f.Close()
	fmt.Fprintln(f, strings.Join(append([]string{rpc}, parts...), " "))
}

// secrets is a recorded call's last part when the kubelet sent secrets:
// "secrets=k1=v1,k2=v2" (sorted), so a test sees what the driver was given.
func secrets(in map[string]string) []string {
	if len(in) == 0 {
		return nil
	}
	parts := make([]string, 0, len(in))
	for k, v := range in {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return []string{"secrets=" + strings.Join(parts, ",")}
}

func (m *mock) GetPluginInfo(context.Context, *csi.GetPluginInfoRequest) (*csi.GetPluginInfoResponse, error) {
	return &csi.GetPluginInfoResponse{Name: m.name, VendorVersion: "0.1.0"}, nil
}

func (m *mock) GetPluginCapabilities(context.Context, *csi.GetPluginCapabilitiesRequest) (*csi.GetPluginCapabilitiesResponse, error) {
	return &csi.GetPluginCapabilitiesResponse{Capabilities: []*csi.PluginCapability{{
		Type: &csi.PluginCapability_Service_{Service: &csi.PluginCapability_Service{
			Type: csi.PluginCapability_Service_CONTROLLER_SERVICE,
		}},
	}}}, nil
}

func (m *mock) Probe(context.Context, *csi.ProbeRequest) (*csi.ProbeResponse, error) {
	return &csi.ProbeResponse{}, nil
}

func (m *mock) CreateVolume(_ context.Context, req *csi.CreateVolumeRequest) (*csi.CreateVolumeResponse, error) {
	id := "vol-" + req.GetName()
	m.record("CreateVolume", id)
	if err := os.MkdirAll(filepath.Join(m.data, id), 0o777); err != nil {
		return nil, err
	}
	return &csi.CreateVolumeResponse{Volume: &csi.Volume{
		VolumeId:      id,
		CapacityBytes: req.GetCapacityRange().GetRequiredBytes(),
	}}, nil
}

func (m *mock) DeleteVolume(_ context.Context, req *csi.DeleteVolumeRequest) (*csi.DeleteVolumeResponse, error) {
	m.record("DeleteVolume", req.GetVolumeId())
	return &csi.DeleteVolumeResponse{}, os.RemoveAll(filepath.Join(m.data, req.GetVolumeId()))
}

func (m *mock) ControllerPublishVolume(_ context.Context, req *csi.ControllerPublishVolumeRequest) (*csi.ControllerPublishVolumeResponse, error) {
	m.record("ControllerPublishVolume", req.GetVolumeId(), req.GetNodeId())
	return &csi.ControllerPublishVolumeResponse{PublishContext: map[string]string{"device": "/dev/mock-" + req.GetVolumeId()}}, nil
}

func (m *mock) ControllerUnpublishVolume(_ context.Context, req *csi.ControllerUnpublishVolumeRequest) (*csi.ControllerUnpublishVolumeResponse, error) {
	m.record("ControllerUnpublishVolume", req.GetVolumeId(), req.GetNodeId())
	return &csi.ControllerUnpublishVolumeResponse{}, nil
}

func (m *mock) ValidateVolumeCapabilities(_ context.Context, req *csi.ValidateVolumeCapabilitiesRequest) (*csi.ValidateVolumeCapabilitiesResponse, error) {
	return &csi.ValidateVolumeCapabilitiesResponse{Confirmed: &csi.ValidateVolumeCapabilitiesResponse_Confirmed{
		VolumeCapabilities: req.GetVolumeCapabilities(),
	}}, nil
}

func (m *mock) ControllerGetCapabilities(context.Context, *csi.ControllerGetCapabilitiesRequest) (*csi.ControllerGetCapabilitiesResponse, error) {
	caps := []*csi.ControllerServiceCapability{}
	for _, t := range []csi.ControllerServiceCapability_RPC_Type{
		csi.ControllerServiceCapability_RPC_CREATE_DELETE_VOLUME,
		csi.ControllerServiceCapability_RPC_PUBLISH_UNPUBLISH_VOLUME,
	} {
		caps = append(caps, &csi.ControllerServiceCapability{Type: &csi.ControllerServiceCapability_Rpc{
			Rpc: &csi.ControllerServiceCapability_RPC{Type: t},
		}})
	}
	return &csi.ControllerGetCapabilitiesResponse{Capabilities: caps}, nil
}

func (m *mock) NodeStageVolume(_ context.Context, req *csi.NodeStageVolumeRequest) (*csi.NodeStageVolumeResponse, error) {
	m.record("NodeStageVolume", append([]string{req.GetVolumeId(), req.GetStagingTargetPath(),
		req.GetPublishContext()["device"]}, secrets(req.GetSecrets())...)...)
	return &csi.NodeStageVolumeResponse{}, nil
}

func (m *mock) NodeUnstageVolume(_ context.Context, req *csi.NodeUnstageVolumeRequest) (*csi.NodeUnstageVolumeResponse, error) {
	m.record("NodeUnstageVolume", req.GetVolumeId(), req.GetStagingTargetPath())
	return &csi.NodeUnstageVolumeResponse{}, nil
}

func (m *mock) NodePublishVolume(_ context.Context, req *csi.NodePublishVolumeRequest) (*csi.NodePublishVolumeResponse, error) {
	ctx := req.GetVolumeContext()
	m.record("NodePublishVolume", append([]string{req.GetVolumeId(), req.GetTargetPath(),
		req.GetStagingTargetPath(), "pod=" + ctx["csi.storage.k8s.io/pod.name"],
		"ephemeral=" + ctx["csi.storage.k8s.io/ephemeral"]}, secrets(req.GetSecrets())...)...)
	source := filepath.Join(m.data, req.GetVolumeId())
	if err := os.MkdirAll(source, 0o777); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(req.GetTargetPath(), 0o750); err != nil {
		return nil, err
	}
	flags := uintptr(syscall.MS_BIND)
	if err := syscall.Mount(source, req.GetTargetPath(), "", flags, ""); err != nil {
		return nil, fmt.Errorf("bind mount of %s: %w", source, err)
	}
	if req.GetReadonly() {
		if err := syscall.Mount("", req.GetTargetPath(), "", flags|syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
			return nil, err
		}
	}
	return &csi.NodePublishVolumeResponse{}, nil
}

func (m *mock) NodeUnpublishVolume(_ context.Context, req *csi.NodeUnpublishVolumeRequest) (*csi.NodeUnpublishVolumeResponse, error) {
	m.record("NodeUnpublishVolume", req.GetVolumeId(), req.GetTargetPath())
	if err := syscall.Unmount(req.GetTargetPath(), 0); err != nil && err != syscall.EINVAL && !os.IsNotExist(err) {
		return nil, err
	}
	_ = os.Remove(req.GetTargetPath())
	if strings.HasPrefix(req.GetVolumeId(), "csi-") { // an inline ephemeral volume's data goes
		_ = os.RemoveAll(filepath.Join(m.data, req.GetVolumeId()))
	}
	return &csi.NodeUnpublishVolumeResponse{}, nil
}

func (m *mock) NodeGetVolumeStats(_ context.Context, req *csi.NodeGetVolumeStatsRequest) (*csi.NodeGetVolumeStatsResponse, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(req.GetVolumePath(), &st); err != nil {
		return nil, err
	}
	bs := int64(st.Bsize)
	return &csi.NodeGetVolumeStatsResponse{Usage: []*csi.VolumeUsage{{
		Unit: csi.VolumeUsage_BYTES, Total: int64(st.Blocks) * bs, Available: int64(st.Bavail) * bs,
		Used: int64(st.Blocks-st.Bfree) * bs,
	}}}, nil
}

func (m *mock) NodeGetCapabilities(context.Context, *csi.NodeGetCapabilitiesRequest) (*csi.NodeGetCapabilitiesResponse, error) {
	caps := []*csi.NodeServiceCapability{}
	for _, t := range []csi.NodeServiceCapability_RPC_Type{
		csi.NodeServiceCapability_RPC_STAGE_UNSTAGE_VOLUME,
		csi.NodeServiceCapability_RPC_GET_VOLUME_STATS,
	} {
		caps = append(caps, &csi.NodeServiceCapability{Type: &csi.NodeServiceCapability_Rpc{
			Rpc: &csi.NodeServiceCapability_RPC{Type: t},
		}})
	}
	return &csi.NodeGetCapabilitiesResponse{Capabilities: caps}, nil
}

func (m *mock) NodeGetInfo(context.Context, *csi.NodeGetInfoRequest) (*csi.NodeGetInfoResponse, error) {
	m.record("NodeGetInfo", m.nodeID)
	return &csi.NodeGetInfoResponse{
		NodeId:             m.nodeID,
		MaxVolumesPerNode:  16,
		AccessibleTopology: &csi.Topology{Segments: map[string]string{"topology.mock.csi/node": m.nodeID}},
	}, nil
}

// registrar answers the kubelet's plugin watcher, as node-driver-registrar does.
type registrar struct {
	registerapi.UnimplementedRegistrationServer
	name, endpoint string
}

func (r *registrar) GetInfo(context.Context, *registerapi.InfoRequest) (*registerapi.PluginInfo, error) {
	return &registerapi.PluginInfo{
		Type:              registerapi.CSIPlugin,
		Name:              r.name,
		Endpoint:          r.endpoint,
		SupportedVersions: []string{"1.0.0"},
	}, nil
}

func (r *registrar) NotifyRegistrationStatus(_ context.Context, s *registerapi.RegistrationStatus) (*registerapi.RegistrationStatusResponse, error) {
	if !s.PluginRegistered {
		log.Printf("registration failed: %s", s.Error)
	} else {
		log.Printf("registered with the kubelet")
	}
	return &registerapi.RegistrationStatusResponse{}, nil
}

func listen(path string) net.Listener {
	_ = os.Remove(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		log.Fatal(err)
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		log.Fatal(err)
	}
	return l
}

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: csi-mock driver|registrar [flags]")
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	name := fs.String("name", "mock.csi.denolet.test", "driver name")
	endpoint := fs.String("endpoint", "/csi/csi.sock", "driver socket")
	nodeID := fs.String("node-id", "", "node ID")
	data := fs.String("data", "/data", "volume directory")
	socket := fs.String("socket", "", "registration socket")
	regPath := fs.String("kubelet-registration-path", "", "the driver socket's path on the node")
	_ = fs.Parse(os.Args[2:])
	switch os.Args[1] {
	case "driver":
		m := &mock{name: *name, nodeID: *nodeID, data: *data}
		d := driver.NewCSIDriver(&driver.CSIDriverServers{Identity: m, Controller: m, Node: m})
		if err := d.Start(listen(*endpoint)); err != nil {
			log.Fatal(err)
		}
		log.Printf("CSI driver %s serving on %s", *name, *endpoint)
		select {}
	case "registrar":
		s := grpc.NewServer()
		registerapi.RegisterRegistrationServer(s, &registrar{name: *name, endpoint: *regPath})
		log.Printf("registrar for %s on %s", *name, *socket)
		log.Fatal(s.Serve(listen(*socket)))
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}
