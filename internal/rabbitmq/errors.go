package rabbitmq

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"
)

// StatusCode returns the HTTP status of a broker error, or 0 when err is not
// an answer of the broker (a transport error, a timeout, or nil). rabbit-hole
// reports 401 as a plain error; it is recognised by its text.
func StatusCode(err error) int {
	var er rabbithole.ErrorResponse
	if errors.As(err, &er) {
		return er.StatusCode
	}
	var erp *rabbithole.ErrorResponse
	if errors.As(err, &erp) && erp != nil {
		return erp.StatusCode
	}
	if err != nil && strings.Contains(err.Error(), "401 Unauthorized") {
		return http.StatusUnauthorized
	}
	return 0
}

// IsNotFound reports whether the broker answered 404.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// reasonVhostOrUserNotFound is the broker's reason text when a permission
// is granted on a vhost or to a user that does not exist (HTTP 400, not 404).
const reasonVhostOrUserNotFound = "vhost_or_user_not_found"

// IsMissingDependency reports whether the broker refused a declaration
// because an object it names is not declared yet: 404 (a queue or exchange
// of a binding, the vhost of a queue), or 400 vhost_or_user_not_found (the
// vhost or user of a permission). The topology controller retries those
// promptly instead of with its backoff.
func IsMissingDependency(err error) bool {
	var er rabbithole.ErrorResponse
	if errors.As(err, &er) && er.StatusCode == http.StatusBadRequest {
		return strings.Contains(er.Reason, reasonVhostOrUserNotFound) || strings.Contains(er.Message, reasonVhostOrUserNotFound)
	}
	return IsNotFound(err)
}

// Message renders err for a Ready condition: for a broker refusal the HTTP
// status and the broker's own reason text (for example "inequivalent arg
// 'x-queue-type' for queue ..."), otherwise err's text. It never contains
// credentials: rabbit-hole errors carry none.
func Message(err error) string {
	var er rabbithole.ErrorResponse
	if !errors.As(err, &er) {
		return err.Error()
	}
	text := er.Reason
	if text == "" {
		text = er.Message
	}
	return fmt.Sprintf("broker answered HTTP %d: %s", er.StatusCode, text)
}

// Done closes the body of a successful rabbit-hole response and passes err
// through, so a call reads `err = rabbitmq.Done(c.PutVhost(...))`.
func Done(res *http.Response, err error) error {
	if res != nil && res.Body != nil {
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
	}
	return err
}
