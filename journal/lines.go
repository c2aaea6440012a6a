package journal

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// lineReader yields the complete lines of a stream, reusing one buffer, with
// no limit on line length (tool outputs can make a line megabytes long).
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line int   // number of the last line returned
	off  int64 // offset just past the last complete line returned
}

func newLineReader(r io.Reader, startLine int, startOff int64) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 256<<10), line: startLine, off: startOff}
}

// next returns the next complete line without its newline. A final chunk
// with no newline is an append in progress: next reports it through partial
// and returns io.EOF, leaving it unread for the next import.
func (lr *lineReader) next() (line []byte, partial bool, err error) {
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.r.ReadSlice('\n')
		lr.buf = append(lr.buf, chunk...)
		switch {
		case err == nil:
			lr.line++
			lr.off += int64(len(lr.buf))
			return bytes.TrimSuffix(lr.buf, []byte{'\n'}), false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return nil, len(bytes.TrimSpace(lr.buf)) > 0, io.EOF
		default:
			return nil, false, err
		}
	}
}
