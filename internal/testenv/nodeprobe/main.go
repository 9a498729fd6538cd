// Command nodeprobe is the workload of the node test (internal/testenv,
// TestNode_*): run in a pod of the local node, it proves the pod reaches the
// apiserver through the kubernetes Service with its own ServiceAccount token,
// and that RBAC grants and denies that account as its Role says.
//
//	nodeprobe check   run the checks once; exit 0 when all hold
//	nodeprobe serve   run the checks, then answer GET /healthz on :8080
//
// PROBE_SERVICE_ACCOUNT names the account the pod must run as; PROBE_CONFIGMAP
// a ConfigMap its Role lets it read. Listing Secrets must be forbidden.
package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const saDir = "/var/run/secrets/kubernetes.io/serviceaccount"

func main() {
	if len(os.Args) != 2 || (os.Args[1] != "check" && os.Args[1] != "serve") {
		fmt.Fprintln(os.Stderr, "usage: nodeprobe check|serve")
		os.Exit(2)
	}
	if err := check(); err != nil {
		fmt.Println("nodeprobe: FAIL:", err)
		os.Exit(1)
	}
	if os.Args[1] == "check" {
		return
	}
	http.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	srv := &http.Server{Addr: ":8080", ReadHeaderTimeout: 5 * time.Second}
	fmt.Println("nodeprobe: serving /healthz on :8080")
	if err := srv.ListenAndServe(); err != nil {
		fmt.Println("nodeprobe:", err)
		os.Exit(1)
	}
}

func check() error {
	read := func(name string) (string, error) {
		b, err := os.ReadFile(filepath.Join(saDir, name))
		return strings.TrimSpace(string(b)), err
	}
	token, err := read("token")
	if err != nil {
		return err
	}
	ns, err := read("namespace")
	if err != nil {
		return err
	}
	ca, err := os.ReadFile(filepath.Join(saDir, "ca.crt"))
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return errors.New("ca.crt holds no certificate")
	}
	host, port := os.Getenv("KUBERNETES_SERVICE_HOST"), os.Getenv("KUBERNETES_SERVICE_PORT")
	if host == "" || port == "" {
		return errors.New("KUBERNETES_SERVICE_HOST/PORT are not set")
	}
	base := "https://" + net.JoinHostPort(host, port)
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	call := func(method, path string, body []byte) (int, []byte, error) {
		req, err := http.NewRequest(method, base+path, bytes.NewReader(body))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}

	// Who am I? The apiserver answers for the token the kubelet mounted.
	code, b, err := call(http.MethodPost, "/apis/authentication.k8s.io/v1/selfsubjectreviews",
		[]byte(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
	if err != nil {
		return fmt.Errorf("reach the apiserver at %s: %w", base, err)
	}
	if code != http.StatusCreated && code != http.StatusOK {
		return fmt.Errorf("SelfSubjectReview: HTTP %d: %s", code, b)
	}
	var review struct {
		Status struct {
			UserInfo struct {
				Username string `json:"username"`
			} `json:"userInfo"`
		} `json:"status"`
	}
	if err := json.Unmarshal(b, &review); err != nil {
		return err
	}
	want := "system:serviceaccount:" + ns + ":" + os.Getenv("PROBE_SERVICE_ACCOUNT")
	if got := review.Status.UserInfo.Username; got != want {
		return fmt.Errorf("runs as %q, want %q", got, want)
	}
	fmt.Println("nodeprobe: identity", want, "via", base)

	// RBAC: the Role's one grant is allowed, anything else forbidden.
	cm := os.Getenv("PROBE_CONFIGMAP")
	if code, b, err = call(http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps/"+cm, nil); err != nil || code != http.StatusOK {
		return fmt.Errorf("get configmap %s: HTTP %d %v: %s", cm, code, err, b)
	}
	fmt.Println("nodeprobe: get configmap", cm, "allowed")
	if code, b, err = call(http.MethodGet, "/api/v1/namespaces/"+ns+"/secrets", nil); err != nil || code != http.StatusForbidden {
		return fmt.Errorf("list secrets: want HTTP 403, got %d %v: %s", code, err, b)
	}
	fmt.Println("nodeprobe: list secrets forbidden")
	return nil
}
