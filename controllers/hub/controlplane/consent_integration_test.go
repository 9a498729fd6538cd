//go:build integration

package controlplane

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// eventNotes are the messages of the events about ns/name with reason.
func eventNotes(ctx context.Context, ns, name, reason string) ([]string, error) {
	var out []string
	var core corev1.EventList
	if err := kube.List(ctx, &core, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for _, e := range core.Items {
		if e.InvolvedObject.Name == name && e.Reason == reason {
			out = append(out, e.Message)
		}
	}
	var events eventsv1.EventList
	if err := kube.List(ctx, &events, client.InNamespace(ns)); err != nil {
		return nil, err
	}
	for _, e := range events.Items {
		if e.Regarding.Name == name && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out, nil
}

// TestIntegration_TenantNamespaceConsentedForServicesIsWarned: a plane
// that assigns a namespace to tenants (namespaceAssignments) and also
// consents it for KeystoneServices (allowedNamespaces) gets a Warning
// event TenantNamespaceConsented naming it, because a KeystoneService
// there is not bound by the tenants' allowedRoles
// (docs/reference/controlplane.md, "Who may create which kind").
func TestIntegration_TenantNamespaceConsentedForServicesIsWarned(t *testing.T) {
	ctx := context.Background()
	cp := newPlane(t, "consent-plane", "http://127.0.0.1:1/v3", "whatever", "consent-tenant", "consent-platform")
	setAssigned(t, cp, "consent-tenant")
	var notes []string
	eventually(t, waitTimeout, "a Warning event "+c5c3v1alpha1.EventTenantNamespaceConsented, func() error {
		var err error
		if notes, err = eventNotes(ctx, cp.Namespace, cp.Name, c5c3v1alpha1.EventTenantNamespaceConsented); err != nil {
			return err
		}
		if len(notes) == 0 {
			return fmt.Errorf("no %s event yet", c5c3v1alpha1.EventTenantNamespaceConsented)
		}
		return nil
	})
	for _, n := range notes {
		if !strings.Contains(n, "namespace consent-tenant is a tenant namespace") || strings.Contains(n, "consent-platform") {
			t.Fatalf("event %q: want the tenant namespace named, not the platform one", n)
		}
	}
	t.Logf("Warning %s: %s", c5c3v1alpha1.EventTenantNamespaceConsented, notes[0])
}

// setAssigned replaces the plane's namespaceAssignments by one management
// cluster namespace per name.
func setAssigned(t *testing.T, cp *c5c3v1alpha1.ControlPlane, namespaces ...string) {
	t.Helper()
	ctx := context.Background()
	eventually(t, waitTimeout, "namespaceAssignments updated", func() error {
		var got c5c3v1alpha1.ControlPlane
		if err := kube.Get(ctx, client.ObjectKeyFromObject(cp), &got); err != nil {
			return err
		}
		got.Spec.NamespaceAssignments = nil
		for _, ns := range namespaces {
			got.Spec.NamespaceAssignments = append(got.Spec.NamespaceAssignments, c5c3v1alpha1.NamespaceAssignment{Namespace: ns})
		}
		return kube.Update(ctx, &got)
	})
}
