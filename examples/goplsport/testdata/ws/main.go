package main

import (
	"fmt"

	"example.com/ws/shapes"
)

func main() { fmt.Println(shapes.Unit.Area()) }
