package webhooks

import (
	"context"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func TestConfigurations_PointAtTheURL(t *testing.T) {
	t.Parallel()
	m, v := Configurations("https://127.0.0.1:9443/", []byte("CA"))
	if len(m.Webhooks) != 1 || len(v.Webhooks) != 2 {
		t.Fatalf("webhooks: %d mutating, %d validating", len(m.Webhooks), len(v.Webhooks))
	}
	want := map[string]string{
		webhookMutateKeystoneService:   "https://127.0.0.1:9443" + PathMutateKeystoneService,
		webhookValidateKeystoneService: "https://127.0.0.1:9443" + PathValidateKeystoneService,
		webhookValidateControlPlane:    "https://127.0.0.1:9443" + PathValidateControlPlane,
	}
	check := func(name string, url *string, ca []byte) {
		if url == nil || *url != want[name] {
			t.Errorf("%s URL = %v, want %s", name, url, want[name])
		}
		if string(ca) != "CA" {
			t.Errorf("%s CA bundle not set", name)
		}
	}
	check(m.Webhooks[0].Name, m.Webhooks[0].ClientConfig.URL, m.Webhooks[0].ClientConfig.CABundle)
	for _, w := range v.Webhooks {
		check(w.Name, w.ClientConfig.URL, w.ClientConfig.CABundle)
		if *w.FailurePolicy != "Fail" {
			t.Errorf("%s failurePolicy %s", w.Name, *w.FailurePolicy)
		}
	}
	if ops := v.Webhooks[1].Rules[0].Operations; len(ops) != 2 || ops[0] != "CREATE" || ops[1] != "UPDATE" {
		t.Errorf("ControlPlane webhook must bind on CREATE and UPDATE (its update warnings): %v", ops)
	}
}

// TestRemoveConfigurations: a stopping hub removes the configurations it
// registered (over an earlier hub's), keeps those another hub re-registered
// (other URL or CA), and an absent configuration is no error. Every webhook
// carries the short timeout.
func TestRemoveConfigurations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	scheme := runtime.NewScheme()
	if err := admissionregistrationv1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	gone := func(c client.Client) (m, v bool) {
		m = apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: MutatingConfigurationName}, &admissionregistrationv1.MutatingWebhookConfiguration{}))
		v = apierrors.IsNotFound(c.Get(ctx, client.ObjectKey{Name: ValidatingConfigurationName}, &admissionregistrationv1.ValidatingWebhookConfiguration{}))
		return m, v
	}
	for _, tc := range []struct {
		name           string
		url            string
		ca             string
		wantM, wantV   bool
		registerBefore bool
	}{
		{name: "own", url: "https://127.0.0.1:9443", ca: "CA", wantM: true, wantV: true, registerBefore: true},
		{name: "another URL", url: "https://127.0.0.1:9444", ca: "CA", registerBefore: true},
		{name: "another CA", url: "https://127.0.0.1:9443", ca: "CA2", registerBefore: true},
		{name: "absent", url: "https://127.0.0.1:9443", ca: "CA", wantM: true, wantV: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fake.NewClientBuilder().WithScheme(scheme).Build()
			if tc.registerBefore {
				// An earlier hub's registration, replaced by this one's.
				for _, u := range []string{"https://127.0.0.1:1", tc.url} {
					if err := EnsureConfigurations(ctx, c, u, []byte(tc.ca)); err != nil {
						t.Fatal(err)
					}
				}
			}
			if err := RemoveConfigurations(ctx, c, "https://127.0.0.1:9443/", []byte("CA")); err != nil {
				t.Fatal(err)
			}
			if m, v := gone(c); m != tc.wantM || v != tc.wantV {
				t.Fatalf("gone: mutating %v, validating %v; want %v, %v", m, v, tc.wantM, tc.wantV)
			}
		})
	}
	m, v := Configurations("https://127.0.0.1:9443", nil)
	for _, w := range m.Webhooks {
		if w.TimeoutSeconds == nil || *w.TimeoutSeconds != SelfRegisteredTimeoutSeconds {
			t.Errorf("%s timeoutSeconds %v", w.Name, w.TimeoutSeconds)
		}
	}
	for _, w := range v.Webhooks {
		if w.TimeoutSeconds == nil || *w.TimeoutSeconds != SelfRegisteredTimeoutSeconds {
			t.Errorf("%s timeoutSeconds %v", w.Name, w.TimeoutSeconds)
		}
	}
}
