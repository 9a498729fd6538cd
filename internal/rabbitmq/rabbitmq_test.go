package rabbitmq

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
)

func TestConfigFromEnv(t *testing.T) {
	cases := []struct {
		name     string
		env      map[string]string
		endpoint string
		wantErr  string
	}{
		{"defaults to http on 15672", map[string]string{EnvHost: "rabbitmq", EnvUsername: "admin", EnvPassword: "p%@:/ x"}, "http://rabbitmq:15672", ""},
		{"https defaults to 15671", map[string]string{EnvHost: "rabbitmq", EnvScheme: "https", EnvUsername: "a", EnvPassword: "b"}, "https://rabbitmq:15671", ""},
		{"RABBITMQ_USER is accepted", map[string]string{EnvHost: "h", EnvPort: "1234", envUserAlias: "a", EnvPassword: "b"}, "http://h:1234", ""},
		{"missing host and password are named", map[string]string{EnvUsername: "a"}, "", EnvHost},
		{"a bad port is refused", map[string]string{EnvHost: "h", EnvPort: "x", EnvUsername: "a", EnvPassword: "b"}, "", EnvPort},
		{"a bad scheme is refused", map[string]string{EnvHost: "h", EnvScheme: "amqp", EnvUsername: "a", EnvPassword: "b"}, "", EnvScheme},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, k := range []string{EnvHost, EnvPort, EnvScheme, EnvUsername, envUserAlias, EnvPassword, EnvCAFile, EnvClusterName} {
				t.Setenv(k, c.env[k])
			}
			cfg, err := ConfigFromEnv()
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("err = %v, want mention of %s", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Endpoint() != c.endpoint || cfg.ClusterName != DefaultClusterName || cfg.Password != c.env[EnvPassword] {
				t.Fatalf("got %+v (endpoint %s)", cfg, cfg.Endpoint())
			}
		})
	}
}

func TestMessageAndStatus(t *testing.T) {
	refusal := rabbithole.ErrorResponse{StatusCode: 400, Message: "bad_request",
		Reason: "inequivalent arg 'x-queue-type' for queue 'q' in vhost '/'"}
	if got := Message(refusal); !strings.Contains(got, "HTTP 400") || !strings.Contains(got, "inequivalent arg 'x-queue-type'") {
		t.Fatalf("Message = %q", got)
	}
	if StatusCode(refusal) != 400 || IsNotFound(refusal) {
		t.Fatal("400 misclassified")
	}
	if !IsNotFound(rabbithole.ErrorResponse{StatusCode: 404}) {
		t.Fatal("404 not recognised")
	}
	if StatusCode(errors.New("Error: API responded with a 401 Unauthorized")) != 401 {
		t.Fatal("401 not recognised")
	}
	if StatusCode(errors.New("dial tcp: connection refused")) != 0 {
		t.Fatal("a transport error has no status")
	}
}

func TestIsMissingDependency(t *testing.T) {
	cases := map[string]struct {
		err  error
		want bool
	}{
		"404": {rabbithole.ErrorResponse{StatusCode: 404, Message: "not_found"}, true},
		"400 vhost_or_user_not_found": {rabbithole.ErrorResponse{StatusCode: 400, Message: "bad_request",
			Reason: "vhost_or_user_not_found"}, true},
		"400 inequivalent arg": {rabbithole.ErrorResponse{StatusCode: 400, Message: "bad_request", Reason: "inequivalent arg 'durable'"}, false},
		"500":                  {rabbithole.ErrorResponse{StatusCode: 500, Reason: "vhost_or_user_not_found"}, false},
		"a transport error":    {errors.New("dial tcp: connection refused"), false},
		"no error":             {nil, false},
	}
	for name, c := range cases {
		if got := IsMissingDependency(c.err); got != c.want {
			t.Errorf("%s: IsMissingDependency = %v, want %v", name, got, c.want)
		}
	}
}

func TestStatusLabel(t *testing.T) {
	if got := statusLabel(&http.Response{StatusCode: 204}, nil); got != "204" {
		t.Errorf("204 answer: %q", got)
	}
	if got := statusLabel(nil, errors.New("connection refused")); got != "error" {
		t.Errorf("transport error: %q", got)
	}
}
