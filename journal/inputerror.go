package journal

import (
	"errors"
	"fmt"
)

// ErrInvalidInput matches every *InputError.
var ErrInvalidInput = errors.New("invalid input")

// InputError is a problem with a file being imported. It names the place:
// File:Line for line-based input, or the message index for a JSON array.
// Nothing of the file is imported when an import fails with it.
type InputError struct {
	File string
	// Line is 1-based; 0 when the place is a message index instead.
	Line int
	// Message is the 0-based index of an OpenAI message, or -1.
	Message int
	Err     error
	// Hint suggests a fix, if there is one.
	Hint string
}

// Error names the input's place and what is wrong there.
func (e *InputError) Error() string {
	switch {
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	case e.Message >= 0:
		return fmt.Sprintf("%s: messages[%d]: %v", e.File, e.Message, e.Err)
	default:
		return fmt.Sprintf("%s: %v", e.File, e.Err)
	}
}

// Unwrap returns the underlying cause.
func (e *InputError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrInvalidInput) true for every InputError.
func (e *InputError) Is(target error) bool { return target == ErrInvalidInput }

func lineError(file string, line int, err error) *InputError {
	return &InputError{File: file, Line: line, Message: -1, Err: err}
}

func messageError(file string, index int, err error) *InputError {
	return &InputError{File: file, Message: index, Err: err}
}
