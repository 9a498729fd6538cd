//go:build integration

package controlplane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestIntegration_AuthURLNeverReflectsAnotherServicesBody: a plane whose
// authURL names a service on the hub's network that is not Keystone (here
// one answering 401 with a body that must stay private) reports
// AuthenticationFailed with the status and URL only; an authURL with a
// fragment or a query (which would cut auth/tokens off the request) is
// refused by the CRD.
func TestIntegration_AuthURLNeverReflectsAnotherServicesBody(t *testing.T) {
	const marker = "PRIVATE-BODY-MARKER"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"not_authorised","reason":"` + marker + `"}`))
	}))
	defer srv.Close()
	cp := newPlane(t, "ssrf", srv.URL+"/api/", "whatever")
	waitForReason(t, cp, c5c3v1alpha1.ReasonAuthenticationFailed)
	var got c5c3v1alpha1.ControlPlane
	if err := kube.Get(context.Background(), client.ObjectKeyFromObject(cp), &got); err != nil {
		t.Fatal(err)
	}
	c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady)
	if strings.Contains(c.Message, marker) || !strings.Contains(c.Message, "HTTP 401") || !strings.Contains(c.Message, srv.URL) {
		t.Fatalf("AdminCredentialReady message %q: want the status and URL, never the body", c.Message)
	}
	t.Logf("AdminCredentialReady=False/AuthenticationFailed: %s", c.Message)

	for _, u := range []string{srv.URL + "/api/overview#", srv.URL + "/v3?x=1"} {
		bad := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "bad", Namespace: "ssrf"},
			Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: u}}}}}
		err := kube.Create(context.Background(), bad)
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c5c3v1alpha1.MsgAuthURLNoQueryOrFragment) {
			t.Fatalf("creating a plane with authURL %s: %v, want Invalid", u, err)
		}
	}
}
