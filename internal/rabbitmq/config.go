// Package rabbitmq builds the RabbitMQ management API client of the topology
// controller from its environment, and classifies the broker's answers.
//
// The controller resolves nothing from rabbitmqClusterReference: it serves
// one broker, whose address and administrative credentials come from its own
// environment (docs/topology.md, "Which resources are served").
package rabbitmq

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"time"

	rabbithole "github.com/michaelklishin/rabbit-hole/v3"

	"github.com/c5c3/orderhub/internal/version"
)

// Environment variables read by ConfigFromEnv.
const (
	EnvHost        = "RABBITMQ_HOST"         // management API host name or address (required)
	EnvPort        = "RABBITMQ_PORT"         // management API port (default 15672, 15671 with https)
	EnvScheme      = "RABBITMQ_SCHEME"       // http or https (default http)
	EnvUsername    = "RABBITMQ_USERNAME"     // administrative user (required; RABBITMQ_USER is accepted too)
	EnvPassword    = "RABBITMQ_PASSWORD"     // its password, used verbatim (required)
	EnvCAFile      = "RABBITMQ_CA_FILE"      // PEM CA bundle verifying the broker's certificate (https only)
	EnvClusterName = "RABBITMQ_CLUSTER_NAME" // the rabbitmqClusterReference.name served (default rabbitmq)
	envUserAlias   = "RABBITMQ_USER"
)

// DefaultClusterName is the cluster name served when RABBITMQ_CLUSTER_NAME is
// unset; it matches the OpenStack-Helm release name of the broker.
const DefaultClusterName = "rabbitmq"

// Config is how to reach the one broker the controller serves.
type Config struct {
	Scheme   string // http or https
	Host     string
	Port     int
	Username string
	Password string
	// CAFile is a PEM bundle; empty uses the system roots (https only).
	CAFile string
	// ClusterName is the rabbitmqClusterReference.name this controller serves.
	ClusterName string
	// Timeout bounds every request; zero means 30 s.
	Timeout time.Duration
}

// ConfigFromEnv reads Config from the RABBITMQ_* variables above. It fails
// when a required variable is missing or the port or scheme is invalid.
func ConfigFromEnv() (Config, error) {
	c := Config{
		Scheme:      os.Getenv(EnvScheme),
		Host:        os.Getenv(EnvHost),
		Username:    os.Getenv(EnvUsername),
		Password:    os.Getenv(EnvPassword),
		CAFile:      os.Getenv(EnvCAFile),
		ClusterName: os.Getenv(EnvClusterName),
	}
	if c.Username == "" {
		c.Username = os.Getenv(envUserAlias)
	}
	if c.Scheme == "" {
		c.Scheme = "http"
	}
	if p := os.Getenv(EnvPort); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 || n > 65535 {
			return Config{}, fmt.Errorf("%s=%q is not a port number", EnvPort, p)
		}
		c.Port = n
	}
	return c, c.complete()
}

func (c *Config) complete() error {
	var errs []error
	switch c.Scheme {
	case "http":
		if c.Port == 0 {
			c.Port = 15672
		}
	case "https":
		if c.Port == 0 {
			c.Port = 15671
		}
	default:
		errs = append(errs, fmt.Errorf("%s=%q: want http or https", EnvScheme, c.Scheme))
	}
	if c.Host == "" {
		errs = append(errs, fmt.Errorf("%s is required", EnvHost))
	}
	if c.Username == "" {
		errs = append(errs, fmt.Errorf("%s is required", EnvUsername))
	}
	if c.Password == "" {
		errs = append(errs, fmt.Errorf("%s is required", EnvPassword))
	}
	if c.ClusterName == "" {
		c.ClusterName = DefaultClusterName
	}
	return errors.Join(errs...)
}

// Endpoint is the management API base URL, for example http://rabbitmq:15672.
func (c Config) Endpoint() string {
	return c.Scheme + "://" + net.JoinHostPort(c.Host, strconv.Itoa(c.Port))
}

// NewClient returns a rabbit-hole client for c. The password is sent as HTTP
// basic authentication exactly as given: no URL is built from it, so %, @, :,
// / and spaces need no escaping. With https the broker is verified against
// CAFile (or the system roots). transport, when non-nil, replaces the
// default transport (tests and the benchmark count requests with it). Every
// request carries version.UserAgent and is counted in
// orderhub_rabbitmq_requests_total (metrics.go); a 401 keeps the broker's
// reason (refusal.go).
func NewClient(c Config, transport http.RoundTripper) (*rabbithole.Client, error) {
	if err := c.complete(); err != nil {
		return nil, err
	}
	if transport == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		if c.Scheme == "https" {
			tc := &tls.Config{MinVersion: tls.VersionTLS12}
			if c.CAFile != "" {
				pem, err := os.ReadFile(c.CAFile)
				if err != nil {
					return nil, fmt.Errorf("reading %s: %w", EnvCAFile, err)
				}
				pool := x509.NewCertPool()
				if !pool.AppendCertsFromPEM(pem) {
					return nil, fmt.Errorf("%s %s holds no PEM certificate", EnvCAFile, c.CAFile)
				}
				tc.RootCAs = pool
			}
			t.TLSClientConfig = tc
		}
		transport = t
	}
	cl, err := rabbithole.NewTLSClient(c.Endpoint(), c.Username, c.Password,
		refusalTransport{next: countingTransport{next: version.Transport(transport)}})
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	cl.SetTimeout(timeout)
	return cl, nil
}
