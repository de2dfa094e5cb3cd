import { randomBytes } from 'node:crypto';

/** mulberry32: small, seedable, good enough to make fault rates reproducible. */
export function seededRandom(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let mixed = state;
		mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
		mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
		return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
	};
}

export function randomId(prefix: string, bytes = 10): string {
	return `${prefix}${randomBytes(bytes).toString('hex')}`;
}
