// Command stackd holds the local stack for a person (`hack/stack up`): it
// starts every server through internal/testenv in a fixed folder, writes an
// env file describing where everything is, and keeps the servers until it
// receives SIGTERM or SIGINT (`hack/stack down`), then stops them in order.
//
//	stackd serve DIR [--node]   start and hold the stack in DIR (writes DIR/env, DIR/ready);
//	                            --node also starts a real node (docs/local-stack.md)
//	stackd reap                 stop servers left by dead runs (by their recorded pids)
//	                            and undo a dead run's node
package main

import (
	"context"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/c5c3/orderhub/internal/testenv"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: stackd serve DIR [--node] | reap")
	}
	switch os.Args[1] {
	case "serve":
		node := len(os.Args) == 4 && os.Args[3] == "--node"
		if len(os.Args) != 3 && !node {
			log.Fatal("usage: stackd serve DIR [--node]")
		}
		if err := serve(os.Args[2], node); err != nil {
			log.Fatal(err)
		}
	case "reap":
		cache := os.Getenv("ORDERHUB_CACHE")
		if cache == "" {
			log.Fatal("ORDERHUB_CACHE is not set")
		}
		for _, r := range testenv.ReapOrphans(cache) {
			fmt.Println("stopped:", r)
		}
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}

func serve(dir string, node bool) error {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	_ = os.Remove(filepath.Join(dir, "ready"))
	startCtx, cancel := context.WithTimeout(ctx, 15*time.Minute)
	defer cancel()
	st, err := testenv.Start(startCtx, testenv.Options{
		Kube: true, ControllerManager: true, Keystone: true, RabbitMQ: true, OpenBao: true, KORC: true, ESO: true,
		Node: node,
		Dir:  dir,
		Logf: func(f string, a ...any) { log.Printf(f, a...) },
	})
	if err != nil {
		return err
	}
	defer st.Stop()
	env := map[string]string{
		"KUBECONFIG":            st.Kube.Kubeconfig,
		"ORDERHUB_KUBE_URL":     st.Kube.URL,
		"OS_CLIENT_CONFIG_FILE": st.Keystone.CloudsYAML,
		"OS_CLOUD":              "admin",
		"ORDERHUB_OPENRC":       st.Keystone.OpenRC,
		"ORDERHUB_KEYSTONE_URL": st.Keystone.URL,
		"BAO_ADDR":              st.OpenBao.Addr,
		"BAO_TOKEN":             st.OpenBao.Token,
		"VAULT_ADDR":            st.OpenBao.Addr,
		"VAULT_TOKEN":           st.OpenBao.Token,
		// The tenant auth the stack set up (docs/reference/openbao.md), for
		// the hub's --openbao-auth-mount, --openbao-role and
		// --openbao-service-account.
		"ORDERHUB_OPENBAO_AUTH_MOUNT":      st.OpenBao.AuthMount,
		"ORDERHUB_OPENBAO_ROLE":            st.OpenBao.Role,
		"ORDERHUB_OPENBAO_SERVICE_ACCOUNT": st.OpenBao.ServiceAccount,
		"RABBITMQ_URL":                     st.RabbitMQ.URL,
		"RABBITMQ_HOST":                    st.RabbitMQ.Host,
		"RABBITMQ_PORT":                    fmt.Sprint(st.RabbitMQ.ManagementPort),
		"RABBITMQ_AMQP_PORT":               fmt.Sprint(st.RabbitMQ.AMQPPort),
		"RABBITMQ_USERNAME":                st.RabbitMQ.User,
		"RABBITMQ_PASSWORD":                st.RabbitMQ.Password,
		"ORDERHUB_STACK_DIR":               dir,
	}
	if st.Node != nil {
		env["ORDERHUB_NODE_NAME"] = st.Node.Name
		env["ORDERHUB_NODE_IP"] = st.Node.IP
		env["CONTAINERD_ADDRESS"] = st.Node.ContainerdAddress
		env["CONTAINERD_NAMESPACE"] = "k8s.io"
		env["ORDERHUB_CTR"] = st.Node.Ctr
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s='%s'\n", k, strings.ReplaceAll(env[k], "'", `'\''`))
	}
	// The stack's own kubectl (matching the apiserver) first on PATH.
	if k8sDir := os.Getenv("ORDERHUB_K8S_DIR"); k8sDir != "" {
		fmt.Fprintf(&b, "export PATH='%s':\"$PATH\"\n", k8sDir)
	}
	if err := os.WriteFile(filepath.Join(dir, "env"), []byte(b.String()), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644); err != nil {
		return err
	}
	log.Printf("stack ready in %s", dir)
	<-ctx.Done()
	log.Printf("stopping the stack")
	_ = os.Remove(filepath.Join(dir, "ready"))
	return nil
}
