package keystoneuser

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/c5c3/orderhub/controllers/hub/controlplane"
)

// A failed verification keeps the delivered password only when Keystone
// gave no answer about it; an answer, a gone user, or a password not yet
// delivered is a refusal.
func TestKeepsDelivered(t *testing.T) {
	t.Parallel()
	status := func(code int) error {
		return controlplane.WithoutBody(gophercloud.ErrUnexpectedResponseCode{Method: "POST", URL: "http://k/v3/auth/tokens", Actual: code})
	}
	dial := &url.Error{Op: "Post", URL: "http://k/v3/auth/tokens", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}
	for _, tc := range []struct {
		name      string
		unchanged bool
		err       error
		want      bool
	}{
		{"401 on the delivered password", true, status(401), false},
		{"403 on the delivered password", true, status(403), false},
		{"404 on the delivered password", true, status(404), false},
		{"503 on the delivered password", true, status(503), true},
		{"verifier deadline", true, fmt.Errorf("Post %q: %w", "http://k/v3/auth/tokens", context.DeadlineExceeded), true},
		{"connection refused", true, dial, true},
		{"the cheap check found the user gone", true, errors.New("the Keystone user was deleted"), false},
		{"a new password unanswered", false, status(503), false},
		{"a new password refused", false, status(401), false},
	} {
		if got := KeepsDelivered(tc.unchanged, tc.err); got != tc.want {
			t.Errorf("%s: KeepsDelivered = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// The at-rest subject names the user, the generation and the password's
// bytes: any of them new is a new subject (a hashing login), the same three
// are the same subject (a cheap check).
func TestRestSubject(t *testing.T) {
	base := restSubject("u1", 3, []byte("secret-a"))
	if again := restSubject("u1", 3, []byte("secret-a")); again != base {
		t.Fatalf("same user, generation and password: %q, then %q", base, again)
	}
	for name, other := range map[string]string{
		"other password":   restSubject("u1", 3, []byte("secret-b")),
		"other generation": restSubject("u1", 4, []byte("secret-a")),
		"other user":       restSubject("u2", 3, []byte("secret-a")),
	} {
		if other == base {
			t.Errorf("%s: the subject %q is the same", name, other)
		}
	}
	if strings.Contains(base, "secret-a") {
		t.Fatalf("the subject %q holds the password", base)
	}
}
