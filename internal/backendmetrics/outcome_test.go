package backendmetrics

import (
	"errors"
	"net/http"
	"testing"
)

func TestOutcome(t *testing.T) {
	for _, tc := range []struct {
		resp *http.Response
		err  error
		want string
	}{
		{nil, errors.New("connection refused"), OutcomeError},
		{nil, nil, OutcomeError},
		{&http.Response{StatusCode: 201}, nil, Outcome2xx},
		{&http.Response{StatusCode: 300}, nil, Outcome3xx},
		{&http.Response{StatusCode: 401}, nil, Outcome4xx},
		{&http.Response{StatusCode: 499}, nil, Outcome4xx},
		{&http.Response{StatusCode: 503}, nil, Outcome5xx},
	} {
		if got := Outcome(tc.resp, tc.err); got != tc.want {
			t.Errorf("Outcome(%v, %v) = %s, want %s", tc.resp, tc.err, got, tc.want)
		}
	}
}
