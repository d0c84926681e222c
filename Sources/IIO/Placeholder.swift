// IIO module
