//go:build !race

package fold_test

// raceDetector is true under -race, where long measurements are cut short.
const raceDetector = false
