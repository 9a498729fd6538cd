package main

import (
	"flag"
	"reflect"
	"testing"

	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

func TestHubOpenBaoFlags(t *testing.T) {
	parse := func(args ...string) hubFlags {
		var h hubFlags
		fs := flag.NewFlagSet("hub", flag.ContinueOnError)
		h.register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := parse(); h.controlPlaneOptions().OpenBao != nil {
		t.Fatal("no address: OpenBao set")
	}
	h := parse("--openbao-address=http://bao:8200")
	want := controlplane.OpenBao{Address: "http://bao:8200", Mount: "kv-v2", AuthMount: "kubernetes", Role: "eso-tenant",
		ServiceAccount: "eso-tenant-auth"}
	if got := h.controlPlaneOptions().OpenBao; got == nil || *got != want {
		t.Fatalf("defaults: %+v", got)
	}
	h = parse("--openbao-address=http://bao:8200", "--openbao-kv-mount=secret", "--openbao-auth-mount=kubernetes/management",
		"--openbao-role=tenant", "--openbao-service-account=bao", "--openbao-token-secret=ns/name", "--openbao-token-key=token")
	want = controlplane.OpenBao{Address: "http://bao:8200", Mount: "secret", AuthMount: "kubernetes/management", Role: "tenant",
		ServiceAccount: "bao"}
	if got := h.controlPlaneOptions().OpenBao; got == nil || *got != want {
		t.Fatalf("set: %+v", got)
	}
	if got := h.removedFlags(); !reflect.DeepEqual(got, []string{"--openbao-token-secret", "--openbao-token-key"}) {
		t.Fatalf("removed flags %v", got)
	}
}
