package keystone

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"

	"github.com/gophercloud/gophercloud/v2"
)

// IsNotFound reports an HTTP 404 from Keystone.
func IsNotFound(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusNotFound) }

// IsConflict reports an HTTP 409 from Keystone, e.g. a create that raced
// another writer of the same name.
func IsConflict(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusConflict) }

// IsForbidden reports an HTTP 403 from Keystone, e.g. a create refused by a
// read-only identity backend (LDAP).
func IsForbidden(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusForbidden) }

// IsUnauthorized reports an HTTP 401 from Keystone.
func IsUnauthorized(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) }

// IsNetwork reports a failure without an HTTP response: connection refused,
// DNS, TLS, timeout or cancellation. Such a failure says nothing about
// credentials.
func IsNetwork(err error) bool {
	var ue *url.Error
	var ne net.Error
	return errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded)
}
