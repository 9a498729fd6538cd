package rabbitmq

import (
	"io"
	"net/http"
	"strings"
	"testing"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
)

// answer is a RoundTripper that answers every request with one canned
// response: the broker's JSON bodies as RabbitMQ 3.10 sends them.
type answer struct {
	code int
	body string
}

func (a answer) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.code, Body: io.NopCloser(strings.NewReader(a.body)), Request: req, Header: http.Header{}}, nil
}

// A 401 reaches the Ready message with the broker's reason, through
// rabbit-hole, instead of rabbit-hole's "API responded with a 401
// Unauthorized".
func TestRefusalKeepsTheBrokersReason(t *testing.T) {
	for _, c := range []struct {
		name string
		a    answer
		want string
	}{
		{"no permissions in the vhost", answer{401, `{"error":"not_authorised","reason":"Access refused."}`}, "broker answered HTTP 401: Access refused."},
		{"wrong administrative password", answer{401, `{"error":"not_authorized","reason":"Login failed"}`}, "broker answered HTTP 401: Login failed"},
		{"a body that is not JSON", answer{401, `<html>`}, "broker answered HTTP 401: Unauthorized"},
		{"other refusals are rabbit-hole's", answer{404, `{"error":"not_found","reason":"no exchange 'x' in vhost '/'"}`}, "broker answered HTTP 404: no exchange 'x' in vhost '/'"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cl, err := rabbithole.NewTLSClient("http://broker.invalid", "admin", "pw", refusalTransport{next: c.a})
			if err != nil {
				t.Fatal(err)
			}
			_, err = cl.DeclareQueue("v", "q", rabbithole.QueueSettings{})
			if got := Message(err); got != c.want {
				t.Fatalf("Message = %q, want %q", got, c.want)
			}
			if StatusCode(err) != c.a.code {
				t.Fatalf("StatusCode = %d, want %d", StatusCode(err), c.a.code)
			}
		})
	}
	res, err := refusalTransport{next: answer{200, `{}`}}.RoundTrip(&http.Request{})
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("a 200 answer: %v, %v", res, err)
	}
}
