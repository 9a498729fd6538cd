package testenv

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// RabbitMQ is a running broker (Debian rabbitmq-server) with the management
// plugin, its own epmd on a private port, and one administrator.
type RabbitMQ struct {
	// URL is the management API's base, http://127.0.0.1:<ManagementPort>.
	URL                      string
	Host                     string
	ManagementPort, AMQPPort int
	// User and Password are the administrator (tagged administrator).
	User, Password string
	// Node is the Erlang node name, for rabbitmqctl -n.
	Node string
	// Home holds the broker's Erlang cookie; EPMDPort is its private epmd.
	// CtlEnv turns them into rabbitmqctl's environment.
	Home     string
	EPMDPort int
	// StreamPort is the stream protocol listener (rabbitmq_stream).
	StreamPort int
}

// CtlEnv is the environment under which /usr/lib/rabbitmq/bin/rabbitmqctl
// reaches this broker (its node, cookie and epmd), to append to os.Environ().
func (r *RabbitMQ) CtlEnv() []string {
	return []string{"HOME=" + r.Home, "RABBITMQ_NODENAME=" + r.Node,
		"ERL_EPMD_PORT=" + strconv.Itoa(r.EPMDPort), "ERL_EPMD_ADDRESS=127.0.0.1"}
}

func (s *Stack) startRabbitMQ(ctx context.Context) error {
	if _, err := os.Stat("/usr/lib/rabbitmq/bin/rabbitmq-server"); err != nil {
		return fmt.Errorf("rabbitmq-server is not installed: run `make tools` (hack/tools.sh debs)")
	}
	dir := filepath.Join(s.Dir, "rabbitmq")
	for _, d := range []string{"mnesia", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	ports, err := freePorts(5)
	if err != nil {
		return err
	}
	amqp, mgmt, dist, epmdPort, stream := ports[0], ports[1], ports[2], ports[3], ports[4]
	r := &RabbitMQ{Host: "127.0.0.1", AMQPPort: amqp, ManagementPort: mgmt,
		URL: fmt.Sprintf("http://127.0.0.1:%d", mgmt), User: "orderhub-admin", Password: randomHex(12),
		Node: fmt.Sprintf("orderhub-%d@localhost", amqp), Home: dir, EPMDPort: epmdPort, StreamPort: stream}
	conf := fmt.Sprintf(`listeners.tcp.default = 127.0.0.1:%d
management.tcp.ip = 127.0.0.1
management.tcp.port = %d
stream.listeners.tcp.default = 127.0.0.1:%d
default_user = %s
default_pass = %s
default_user_tags.administrator = true
loopback_users = none
log.console = true
log.file = false
`, amqp, mgmt, stream, r.User, r.Password)
	// rabbitmq_shovel serves the shovel runtime parameters the topology
	// Shovel declares (https://www.rabbitmq.com/docs/shovel-dynamic),
	// rabbitmq_federation the federation-upstream parameters of a Federation
	// (https://www.rabbitmq.com/docs/federation-reference), rabbitmq_stream
	// the stream protocol a SuperStream's clients use
	// (https://www.rabbitmq.com/docs/streams#super-streams).
	files := map[string]string{"rabbitmq.conf": conf,
		"enabled_plugins": "[rabbitmq_management,rabbitmq_shovel,rabbitmq_federation,rabbitmq_stream].\n", "rabbitmq-env.conf": ""}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			return err
		}
	}
	// Our own epmd on a private port: it is stopped with the stack instead of
	// lingering on 4369 after the broker, and parallel stacks do not share it.
	epmdEnv := []string{"ERL_EPMD_PORT=" + strconv.Itoa(epmdPort), "ERL_EPMD_ADDRESS=127.0.0.1"}
	if _, err := s.startProc("epmd", "/usr/bin/epmd", []string{"-port", strconv.Itoa(epmdPort)}, epmdEnv, dir); err != nil {
		return err
	}
	env := append(epmdEnv,
		"HOME="+dir,
		"RABBITMQ_NODENAME="+r.Node,
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+strconv.Itoa(amqp),
		"RABBITMQ_DIST_PORT="+strconv.Itoa(dist),
		"RABBITMQ_MNESIA_BASE="+filepath.Join(dir, "mnesia"),
		"RABBITMQ_LOG_BASE="+filepath.Join(dir, "log"),
		"RABBITMQ_PID_FILE="+filepath.Join(dir, "rabbitmq.pid"),
		"RABBITMQ_CONFIG_FILE="+filepath.Join(dir, "rabbitmq.conf"),
		"RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(dir, "enabled_plugins"),
		"RABBITMQ_CONF_ENV_FILE="+filepath.Join(dir, "rabbitmq-env.conf"),
		// Make the start script exec the Erlang VM (so our pid is the broker)
		// without reading standard input.
		"RABBITMQ_ALLOW_INPUT=true",
		"RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=-noinput",
	)
	// The start script execs the Erlang VM, whose command line names our
	// private HOME (-home <dir>): that identifies the broker's pid.
	p, err := s.startProcMatch("rabbitmq", "/usr/lib/rabbitmq/bin/rabbitmq-server", "-home "+dir, nil, env, dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "rabbitmq", p, 2*time.Minute, func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.URL+"/api/overview", nil)
		if err != nil {
			return err
		}
		req.SetBasicAuth(r.User, r.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("GET /api/overview: %s", resp.Status)
		}
		return nil
	}); err != nil {
		return err
	}
	s.RabbitMQ = r
	return nil
}
