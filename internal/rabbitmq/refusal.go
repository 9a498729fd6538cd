package rabbitmq

import (
	"encoding/json"
	"io"
	"net/http"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
)

// refusalTransport keeps the broker's own words for a 401. rabbit-hole turns
// a 401 into the plain error "Error: API responded with a 401 Unauthorized"
// and drops the body (github.com/michaelklishin/rabbit-hole/v3 client.go,
// parseResponseErrors), though its reason says what was refused: "Login
// failed" for the controller's own credentials, "Access refused." for a vhost
// the administrative user has no permissions in (yet). This transport
// answers a 401 with the error rabbit-hole builds for every other refusal, a
// rabbithole.ErrorResponse (reached through the *url.Error of net/http), so
// Message reports it as "broker answered HTTP 401: Access refused.".
type refusalTransport struct{ next http.RoundTripper }

func (t refusalTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err != nil || res.StatusCode != http.StatusUnauthorized {
		return res, err
	}
	return nil, refusal(res)
}

// maxRefusalBody bounds how much of a refusal's body is read.
const maxRefusalBody = 64 << 10

// refusal reads a refused answer's JSON body ({"error": ..., "reason": ...})
// into a rabbithole.ErrorResponse and closes it; a body that is not such JSON
// leaves the HTTP status text as the error.
func refusal(res *http.Response) rabbithole.ErrorResponse {
	defer func() { _ = res.Body.Close() }()
	var e rabbithole.ErrorResponse
	if err := json.NewDecoder(io.LimitReader(res.Body, maxRefusalBody)).Decode(&e); err != nil {
		e = rabbithole.ErrorResponse{Message: http.StatusText(res.StatusCode)}
	}
	e.StatusCode = res.StatusCode
	return e
}
