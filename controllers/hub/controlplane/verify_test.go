package controlplane

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// TestVerifyNeverReflectsTheResponseBody: a URL that answers the token
// request with 401 and a body is classified AuthenticationFailed, and the
// message names the status and URL but not the body.
func TestVerifyNeverReflectsTheResponseBody(t *testing.T) {
	const body = "SECRET-BODY-MARKER guest:guest"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	err := KeystoneVerifier{}.Verify(context.Background(), TokenRequest{AuthURL: srv.URL + "/api/", User: "u", Password: "p", Domain: "Default"})
	if err == nil {
		t.Fatal("Verify succeeded against a 401")
	}
	reason, msg := Classify(err)
	if reason != c5c3v1alpha1.ReasonAuthenticationFailed {
		t.Errorf("reason %s (%s), want AuthenticationFailed", reason, msg)
	}
	if strings.Contains(msg, "SECRET-BODY-MARKER") || !strings.Contains(msg, "HTTP 401") || !strings.Contains(msg, srv.URL) {
		t.Errorf("message %q: want the status and URL, not the body", msg)
	}
}

func TestWithoutBody(t *testing.T) {
	long := "http://k/" + strings.Repeat("a", 2*MaxURLInMessage)
	err := WithoutBody(gophercloud.ErrUnexpectedResponseCode{Method: "POST", URL: long, Actual: 500, Body: []byte("body")})
	if strings.Contains(err.Error(), "body\"") || strings.Contains(err.Error(), ": body") || len(err.Error()) > MaxURLInMessage+100 {
		t.Errorf("message %q", err.Error())
	}
	if !gophercloud.ResponseCodeIs(err, 500) {
		t.Error("the status code is lost")
	}
	if WithoutBody(nil) != nil {
		t.Error("nil is not kept")
	}
}

func TestCheckAuthURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://keystone.example.com:5000/v3":  true,
		"http://127.0.0.1:15672/api/overview#":  false,
		"http://127.0.0.1:15672/api/overview#x": false,
		"https://keystone.example.com/v3?x=1":   false,
		"https://keystone.example.com/v3?":      false,
		"https://keystone.example.com/v3/":      true,
		"http://[::1]:5000/v3":                  true,
	} {
		if err := CheckAuthURL(u); (err == nil) != ok {
			t.Errorf("CheckAuthURL(%q) = %v, want ok %t", u, err, ok)
		}
	}
}
