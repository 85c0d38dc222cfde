// Package shapes measures shapes.
package shapes

import "math"

// A Circle has a radius.
type Circle struct{ R float64 }

// Area is the area of c.
func (c Circle) Area() float64 { return math.Pi * c.R * c.R }

// Unit is the unit circle.
var Unit = Circle{R: 1}

func helper() float64 { return math.Sqrt(Unit.Area()) }
