package response

import (
	"bytes"
	"errors"

	goyaml "go.yaml.in/yaml/v2"
)

// errYAMLTooLarge marks a YAML answer past its bound (yamlBound).
var errYAMLTooLarge = errors.New("the YAML encoding of the response exceeds its bound; request application/json")

// yamlBound is the most YAML written for n bytes of JSON. YAML indents
// every line by its depth, so an object nested thousands of levels deep
// (JSON allows 10,000) grows quadratically: a chain of 9,999 maps, 60 KB
// of JSON, is 100 MB of YAML (kube-apiserver writes 300 MB for it).
// Real objects, nested a few dozen levels at most, stay well within
// four times their JSON; a bare chain passes the bound past about
// 2,000 levels.
func yamlBound(n int) int {
	return 4*n + 4<<20
}

// jsonToYAML converts JSON to YAML as sigs.k8s.io/yaml does (numbers
// keep their type, keys come out sorted) but stops with errYAMLTooLarge
// once the output passes yamlBound.
func jsonToYAML(js []byte) ([]byte, error) {
	var v any
	if err := goyaml.Unmarshal(js, &v); err != nil {
		return nil, err
	}
	out := &cappedBuffer{limit: yamlBound(len(js))}
	enc := goyaml.NewEncoder(out)
	err := enc.Encode(v)
	if err == nil {
		err = enc.Close()
	}
	if out.full {
		return nil, errYAMLTooLarge
	}
	if err != nil {
		return nil, err
	}
	return out.buf.Bytes(), nil
}

// cappedBuffer is a buffer that refuses writes past limit bytes.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
	full  bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.limit {
		c.full = true
		return 0, errYAMLTooLarge
	}
	return c.buf.Write(p)
}
