package keystone

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
)

func TestDecideConnect(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	boom := errors.New("boom")
	for _, tc := range []struct {
		name      string
		connected bool
		lastErr   error
		lastTry   time.Time
		want      connectDecision
	}{
		{"connected: nothing to do", true, nil, now.Add(-time.Hour), connectDone},
		{"never tried: try", false, nil, time.Time{}, connectTry},
		{"failed a second ago: repeat the failure, no request", false, boom, now.Add(-time.Second), connectRepeatFailure},
		{"failed a retry period ago: try again", false, boom, now.Add(-5 * time.Second), connectTry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := decideConnect(tc.connected, tc.lastErr, tc.lastTry, now, 5*time.Second); got != tc.want {
				t.Errorf("decideConnect = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConnectErrorNamesEndpointOrCredential(t *testing.T) {
	t.Parallel()
	cfg := Config{AuthURL: "http://keystone.example:5000/v3", Username: "admin", Password: "top-secret",
		UserDomainName: "Default", ProjectName: "admin", ProjectDomainName: "Default"}
	unreachable := &ConnectError{Endpoint: cfg.AuthURL, Credential: cfg.credential(),
		Err: &url.Error{Op: "Post", URL: cfg.AuthURL, Err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}}}
	rejected := &ConnectError{Endpoint: cfg.AuthURL, Credential: cfg.credential(), Rejected: true,
		Err: gophercloud.ErrUnexpectedResponseCode{Actual: 401}}
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{unreachable, []string{"endpoint http://keystone.example:5000/v3 is unreachable", "OS_AUTH_URL"}},
		{rejected, []string{"rejected the admin credential", "user admin in domain \"Default\"", "OS_PASSWORD"}},
	} {
		msg := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%q does not contain %q", msg, w)
			}
		}
		if strings.Contains(msg, cfg.Password) {
			t.Errorf("%q contains the password", msg)
		}
	}
}

// A lazy session does no request until Connect, and a failed Connect is not
// repeated within ConnectRetry.
func TestLazySessionConnectsOnDemand(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close() // nothing listens: connection refused
	s, err := NewLazySession(Config{AuthURL: "http://" + addr + "/v3", Username: "admin", Password: "pw", UserDomainName: "Default"})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return now }
	first := s.Connect(context.Background())
	var ce *ConnectError
	if !errors.As(first, &ce) || ce.Rejected || !strings.Contains(first.Error(), "unreachable") {
		t.Fatalf("Connect = %v, want an unreachable ConnectError", first)
	}
	if again := s.Connect(context.Background()); again != first {
		t.Errorf("second Connect within ConnectRetry = %v, want the first failure repeated", again)
	}
	if s.Self() != "" {
		t.Errorf("Self = %q before a successful Connect", s.Self())
	}
}
