package workloads

import "math"

// expCount is roundCount(math.Exp(x)), the token count of a log-normal
// draw, computed without math.Exp when that cannot change the count. A
// count only needs to know which half-integers e^x lies between: a table
// exponential (2^(k/64) times a degree-5 polynomial, relative error below
// 1e-15) gives e^x to within expSlack, and when e^x's whole neighbourhood
// of that width rounds to one count, that is the count math.Exp's value
// (itself within an ulp of e^x) rounds to. Otherwise, about one draw in a
// billion, and for x outside the table's range, it asks math.Exp. So the
// counts are exactly those of roundCount(math.Exp(x)), at a third of the
// cost (math.Exp was a tenth of a cluster request's time).
func expCount(x float64) int {
	// The common case, with tableExp inlined: a count below maxTokens with
	// no rounding boundary within reach (expCountSlow's last case; its
	// hi + 0.5 is positive, so truncating it floors it).
	if x > -40 && x < 22 {
		y := tableExp(x)
		if n := float64(int64(y*(1+expSlack) + 0.5)); y*(1-expSlack) >= n-0.5 && n < maxTokens {
			return int(n)
		}
	}
	return expCountSlow(x)
}

// expCountSlow is expCount in full: out of the table's range, at
// maxTokens, and near a rounding boundary it asks math.Exp.
func expCountSlow(x float64) int {
	if !(x > -40 && x < 22) { // e^22 > maxTokens; NaN goes to math.Exp too
		return roundCount(math.Exp(x))
	}
	y := tableExp(x)
	lo, hi := y*(1-expSlack), y*(1+expSlack)
	if lo >= maxTokens {
		return maxTokens
	}
	n := math.Floor(hi + 0.5) // the count of the neighbourhood's top
	if lo < n-0.5 {
		return roundCount(math.Exp(x)) // a rounding boundary is within reach
	}
	return min(int(n), maxTokens)
}

// expSlack bounds the relative distance between tableExp(x), e^x and
// math.Exp(x) with room to spare: tableExp is within a few ulps (about
// 1e-15) of e^x, math.Exp within one.
const expSlack = 1e-12

// exp2Frac[j] is 2^(j/64).
var exp2Frac = func() (t [64]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 64)
	}
	return t
}()

// ln2/64 split in two: the high part has its low 16 bits zero, so k times
// it is exact for |k| < 2^16 (|x| < 40 gives |k| < 3,700).
const (
	ln2By64Hi = 0x1.62e42fefa0000p-7
	ln2By64Lo = 0x1.cf79abc9e3b3ap-46
	invLn2x64 = 64 / math.Ln2
)

// tableExp is e^x for -40 < x < 22, within a few ulps: x = k·ln2/64 + r
// with |r| <= ln2/128, e^x = 2^(k>>6) · 2^((k&63)/64) · e^r, and e^r by
// its Taylor polynomial to r^5 (the rest below 4e-17 of it).
func tableExp(x float64) float64 {
	// k = round(x·64/ln2): adding 1.5·2^52 leaves the rounded integer in
	// the low bits of the sum (|x·64/ln2| < 2^31).
	t := x*invLn2x64 + roundMagic
	k := int32(math.Float64bits(t)) // the low 32 bits, signed
	kf := t - roundMagic
	r := (x - kf*ln2By64Hi) - kf*ln2By64Lo
	p := 1 + r*(1+r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120)))))
	// 2^(k>>6), k>>6 between -58 and 32, from a table indexed by its low
	// byte (which spares a bounds check): that keeps tableExp small
	// enough to be inlined.
	return exp2Frac[k&63] * p * exp2Int[uint8(k>>6)]
}

// exp2Int[uint8(m)] is 2^m for -128 <= m < 128, exactly (each is a normal
// number, as the bits tableExp built were).
var exp2Int = func() (t [256]float64) {
	for j := range t {
		t[j] = math.Ldexp(1, int(int8(j)))
	}
	return t
}()

// roundMagic is 1.5·2^52: adding it rounds a number below 2^51 in
// magnitude to an integer (to nearest, ties to even).
const roundMagic = 0x1.8p52
