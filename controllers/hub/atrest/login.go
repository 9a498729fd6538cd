package atrest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"

	"github.com/gophercloud/gophercloud/v2"
)

// LoginOutcome is what a failed token request says about the secret it presented
// (docs/reference/keystoneuser.md and keystoneapplicationcredential.md,
// "What is detected how fast").
type LoginOutcome int

const (
	// LoginAccepted: no error.
	LoginAccepted LoginOutcome = iota
	// LoginRefused: 401 or 404, Keystone refused the secret or does not know
	// its owner.
	LoginRefused
	// LoginUnanswered: no response (refused or reset connection, timeout, the
	// caller's deadline) or a 5xx; nothing is learnt about the secret.
	LoginUnanswered
	// LoginOtherAnswer: any other answer (403, another status, a non-HTTP
	// error such as the cheap check's gone finding).
	LoginOtherAnswer
)

// ClassifyLogin classifies err from a token request. Pure.
func ClassifyLogin(err error) LoginOutcome {
	if err == nil {
		return LoginAccepted
	}
	var code gophercloud.ErrUnexpectedResponseCode
	if errors.As(err, &code) {
		switch {
		case code.Actual == http.StatusUnauthorized || code.Actual == http.StatusNotFound:
			return LoginRefused
		case code.Actual >= http.StatusInternalServerError:
			return LoginUnanswered
		}
		return LoginOtherAnswer
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) {
		return LoginUnanswered
	}
	return LoginOtherAnswer
}
