//go:build integration

package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// TestIntegration_Chart_AggregateRolesMatchKustomize: the chart renders the
// aggregated order ClusterRoles of config/rbac/aggregate/order_roles.yaml
// (same rules, same aggregation labels; names prefixed by the release's
// full name), never granting controlplanes or keystoneservices, and
// hub.aggregateOrderRoles=false leaves them out.
func TestIntegration_Chart_AggregateRolesMatchKustomize(t *testing.T) {
	b, err := os.ReadFile("../../config/rbac/aggregate/order_roles.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var want []rbacv1.ClusterRole
	d := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(b), 4096)
	for {
		var r rbacv1.ClusterRole
		if err := d.Decode(&r); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		want = append(want, r)
	}
	if len(want) != 2 {
		t.Fatalf("%d ClusterRoles in order_roles.yaml, want 2", len(want))
	}
	objs := mustTemplate(t)
	for _, w := range want {
		got := find(objs, "ClusterRole", "rel-"+w.Name)
		if got == nil {
			t.Errorf("ClusterRole rel-%s not rendered", w.Name)
			continue
		}
		cr := got.Typed.(*rbacv1.ClusterRole)
		if !reflect.DeepEqual(cr.Rules, w.Rules) {
			t.Errorf("ClusterRole %s rules differ from order_roles.yaml:\n%+v\nwant\n%+v", cr.Name, cr.Rules, w.Rules)
		}
		for k, v := range w.Labels {
			if k != "app.kubernetes.io/name" && cr.Labels[k] != v {
				t.Errorf("ClusterRole %s label %s=%q, want %q", cr.Name, k, cr.Labels[k], v)
			}
		}
		for _, r := range cr.Rules {
			for _, res := range r.Resources {
				if res == "controlplanes" || res == "keystoneservices" || res == "*" {
					t.Errorf("ClusterRole %s grants %s (operator-only)", cr.Name, res)
				}
			}
		}
	}
	off := mustTemplate(t, "hub.aggregateOrderRoles=false")
	for _, w := range want {
		if find(off, "ClusterRole", "rel-"+w.Name) != nil {
			t.Errorf("ClusterRole rel-%s rendered with hub.aggregateOrderRoles=false", w.Name)
		}
	}
}
