package nodeagent

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strconv"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// The simulated runtime has no images and no containers, so the names
// it reports are made up, but shaped as containerd reports them and
// derived from their inputs, so that a step computed twice gives the
// same status.

// normalizeImage spells a reference as the runtime reports it in
// status.image: with its registry and, when it has no digest, a tag
// ("nginx" is docker.io/library/nginx:latest).
func normalizeImage(ref string) string {
	name, digest, hasDigest := strings.Cut(ref, "@")
	first, _, qualified := strings.Cut(name, "/")
	if !qualified || !(strings.ContainsAny(first, ".:") || first == "localhost") {
		if !qualified {
			name = "library/" + name
		}
		name = "docker.io/" + name
	}
	if hasDigest {
		return name + "@" + digest
	}
	last := name[strings.LastIndex(name, "/")+1:]
	if !strings.Contains(last, ":") {
		name += ":latest"
	}
	return name
}

// repository is a normalized reference without its tag or digest.
func repository(normalized string) string {
	if i := strings.Index(normalized, "@"); i >= 0 {
		return normalized[:i]
	}
	if i := strings.LastIndex(normalized, ":"); i > strings.LastIndex(normalized, "/") {
		return normalized[:i]
	}
	return normalized
}

// imageID is the repository digest the runtime reports in
// status.imageID; a reference pinned by digest keeps its own.
func imageID(ref string) string {
	n := normalizeImage(ref)
	if strings.Contains(n, "@") {
		return n
	}
	return repository(n) + "@sha256:" + digestOf(n)
}

// imageSize is the size the Pulled event reports.
func imageSize(ref string) uint64 {
	sum := sha256.Sum256([]byte(ref))
	return 1<<20 + binary.BigEndian.Uint64(sum[:8])%(200<<20)
}

// containerID names one run of a container: the pod, the container and
// its restart count pick it.
func containerID(podUID, container string, restartCount int32) string {
	return "containerd://" + digestOf(podUID, container, strconv.Itoa(int(restartCount)))
}

func digestOf(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(sum[:])
}

// nodeImages are the images each simulated node holds: those its
// containers have started from. A kubelet pulls an IfNotPresent image
// once per node, and every later pod of it starts from the node's copy.
type nodeImages struct {
	mu     sync.Mutex
	byNode map[string]map[string]bool // by normalized reference
}

func (n *nodeImages) has(node, image string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.byNode[node][normalizeImage(image)]
}

// keep records the images of the containers st shows started.
func (n *nodeImages) keep(node string, st corev1.PodStatus) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, list := range [][]corev1.ContainerStatus{st.InitContainerStatuses, st.ContainerStatuses} {
		for _, cs := range list {
			if cs.ContainerID == "" || cs.Image == "" {
				continue
			}
			if n.byNode == nil {
				n.byNode = map[string]map[string]bool{}
			}
			imgs := n.byNode[node]
			if imgs == nil {
				imgs = map[string]bool{}
				n.byNode[node] = imgs
			}
			imgs[cs.Image] = true
		}
	}
}
