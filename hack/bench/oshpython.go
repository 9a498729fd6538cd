package main

import (
	"context"
	"os"
	"strings"
	"time"

	"github.com/c5c3/orderhub/internal/oshref"
)

// The osh-python runner: OpenStack-Helm's Python reference topology
// controller (docs/topology.md, "The OpenStack-Helm Python controller as an
// oracle"), rendered by internal/oshref from the checkout -osh-checkout names,
// with the rabbitmq chart's defaults (sweep interval and error back-off 10 s,
// debug log off). docs/performance.md, "Sets and runners".
const (
	oshInterval = 10 * time.Second
	oshBackoff  = 10 * time.Second
	// oshServing is the line the controller logs once it has its Kubernetes
	// client, right before its first sweep.
	oshServing = "Created k8s api client"
)

// oshPythonSkip is why the osh-python runner cannot run ("" when it can):
// it needs a checkout, and Debian's python3 with python3-kubernetes and
// python3-requests (checkPython).
func oshPythonSkip(checkout string, checkPython func() error) string {
	if checkout == "" {
		return "osh-python skipped: no -osh-checkout (an OpenStack-Helm checkout)"
	}
	if err := checkPython(); err != nil {
		return "osh-python skipped: " + err.Error()
	}
	return ""
}

// oshPythonEnv is the controller's environment: internal/oshref's, with the
// chart's debug setting (off) in place of oshref's (on; the later entry wins).
func oshPythonEnv(o oshref.Options) []string {
	return append(oshref.Env(o), "RABBITMQ_TOPOLOGY_CONTROLLER_DEBUG=0", "PATH=/usr/bin:/bin")
}

// oshServes reports whether the controller's log shows it serving.
func oshServes(log []byte) bool { return strings.Contains(string(log), oshServing) }

// oshPythonRun is the topology set for the Python controller: orderhub's
// objects (the same API group and cluster name), in a namespace of its own.
func (b *bench) oshPythonRun(tag string) controllerRun {
	r := b.stack.RabbitMQ
	host, port := hostPort(b.brokerProxy.URL)
	return controllerRun{
		set: setTopology, runner: runnerOSHPython, backend: b.brokerProxy,
		objects: topologySet(orderhubTopologyAPI, map[string]any{"name": benchClusterName}, b.n, tag),
		ready:   conditionTrue("Ready", false),
		start: func(ctx context.Context, ns, kubeconfig string) (*process, error) {
			script, err := oshref.Render(b.oshCheckout, b.logDir)
			if err != nil {
				return nil, err
			}
			env := oshPythonEnv(oshref.Options{Kubeconfig: kubeconfig, Namespace: ns, ClusterName: benchClusterName,
				Host: host, Port: port, User: r.User, Password: r.Password, Interval: oshInterval, Backoff: oshBackoff})
			return startProcessUntil(ctx, ns+"-osh-python", b.logDir, oshref.DefaultPython, []string{script}, env,
				"(log line "+oshServing+")", func(p *process) bool {
					log, err := os.ReadFile(p.log)
					return err == nil && oshServes(log)
				})
		},
	}
}
