package jsonwire

import "testing"

func TestNumberArithmetic(t *testing.T) {
	num := func(s string) *Number { n := ParseNumber([]byte(s)); return &n }
	for _, tt := range []struct {
		a, b string
		cmp  int
	}{
		{"1", "1.0", 0}, {"-0", "0", 0}, {"0.0e5", "-0.000", 0}, {"1e2", "100", 0}, {"10e-1", "1", 0},
		{"9007199254740993", "9007199254740992", 1}, {"-1e400", "-1e399", -1}, {"1e-400", "0", 1},
		{"123.456", "123.4560001", -1}, {"-5", "3", -1}, {"0.1", "0.09999999999999999999", 1},
		{"1e99999999999999999999", "1e400", 1}, {"1e-99999999999999999999", "0", 1},
	} {
		if got := CompareNumbers(num(tt.a), num(tt.b)); got != tt.cmp {
			t.Errorf("compare(%s, %s) = %d, want %d", tt.a, tt.b, got, tt.cmp)
		}
	}
	for _, tt := range []struct {
		a, m string
		want bool
	}{
		{"0.3", "0.1", true}, {"0.07", "0.01", true}, {"1e300", "0.5", true}, {"1e-300", "0.5", false},
		{"7", "2", false}, {"-9", "3", true}, {"0", "0.3", true}, {"4.5", "1.5", true}, {"4.6", "1.5", false},
		{"1e30", "1024", true}, {"1e9", "1024", false}, {"123456789012345678901234567890", "3", true},
		{"24691357802469135780246", "12345678901234567890123", true}, {"24691357802469135780247", "12345678901234567890123", false},
	} {
		if got := MultipleOf(num(tt.a), num(tt.m)); got != tt.want {
			t.Errorf("MultipleOf(%s, %s) = %v, want %v", tt.a, tt.m, got, tt.want)
		}
	}
	for s, want := range map[string]bool{"1e308": false, "1.7976931348623157e308": false, "1.7976931348623159e308": true,
		"1e309": true, "-1e309": true, "1e-400": false, "17976931348623158e292": false, "0.0000001e1000010": true} {
		if got := num(s).OutOfRange(); got != want {
			t.Errorf("outOfRange(%s) = %v, want %v", s, got, want)
		}
	}
}
