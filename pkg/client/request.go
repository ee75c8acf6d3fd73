package client

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Retry-After on 429 is honored this many times, for waits up to
// maxRetryAfter each; past that the caller gets the 429 and its own
// backoff (a workqueue's rate limiter) takes over.
const (
	maxRetries    = 3
	maxRetryAfter = 10 * time.Second
	// maxErrorBody bounds how much of an error answer is read.
	maxErrorBody = 1 << 20
)

// request is one HTTP call to the server.
type request struct {
	method      string
	path        string // below the server's base URL, starting with "/"
	query       url.Values
	body        []byte
	contentType string
	accept      string
	stream      bool // a watch: no overall timeout
}

// reply is a complete 2xx answer.
type reply struct {
	body        []byte
	contentType string
}

// call sends r and reads the whole answer.
func (c *Client) call(ctx context.Context, r request) (reply, error) {
	resp, err := c.send(ctx, r)
	if err != nil {
		return reply{}, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return reply{}, fmt.Errorf("client: %s %s: reading the answer: %w", r.method, r.path, err)
	}
	return reply{body: body, contentType: resp.Header.Get("Content-Type")}, nil
}

// send sends r and returns a 2xx response with its body open; any other
// answer becomes a *StatusError. A 429 with Retry-After is retried a few
// times; the body is a byte slice so each attempt can send it again.
func (c *Client) send(ctx context.Context, r request) (*http.Response, error) {
	u := *c.base
	u.Path += r.path
	u.RawPath = ""
	if len(r.query) > 0 {
		u.RawQuery = r.query.Encode()
	}
	hc := c.http
	if r.stream {
		hc = c.watch
	}
	for attempt := 0; ; attempt++ {
		if err := c.limiter.wait(ctx); err != nil {
			return nil, err
		}
		var body io.Reader
		if r.body != nil {
			body = bytes.NewReader(r.body)
		}
		req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
		if err != nil {
			return nil, fmt.Errorf("client: %w", err)
		}
		if r.contentType != "" {
			req.Header.Set("Content-Type", r.contentType)
		}
		if r.accept != "" {
			req.Header.Set("Accept", r.accept)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return nil, fmt.Errorf("client: %s %s: %w", r.method, r.path, err)
		}
		c.warnings.handle(resp.Header)
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			return resp, nil
		}
		errBody, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		resp.Body.Close()
		st, ok := decodeStatus(errBody, resp.Header.Get("Content-Type"))
		if !ok {
			st = synthesizedStatus(resp.StatusCode, errBody)
		}
		if st.Code == 0 {
			st.Code = int32(resp.StatusCode)
		}
		serr := &StatusError{ErrStatus: st}
		wait, retry := retryAfter(resp)
		if !retry || attempt >= maxRetries {
			return nil, serr
		}
		c.log.DebugContext(ctx, "server asked to retry", "method", r.method, "path", r.path, "after", wait)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, serr
		case <-t.C:
		}
	}
}

// retryAfter says whether a response may be retried, and when: a 429
// with a Retry-After of at most maxRetryAfter seconds.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	s, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || s < 0 {
		return 0, false
	}
	d := time.Duration(s) * time.Second
	return d, d <= maxRetryAfter
}
