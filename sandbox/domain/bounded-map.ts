/**
 * Puts `key` last in an insertion-ordered map (the newest entry) and drops the oldest entries
 * beyond `capacity`: the bounded LRU behind idempotency records, per-key counters and tokens.
 */
export function setNewest<K, V>(map: Map<K, V>, key: K, value: V, capacity: number): void {
	map.delete(key);
	map.set(key, value);
	while (map.size > capacity) {
		const oldest = map.keys().next().value;
		if (oldest === undefined) break;
		map.delete(oldest);
	}
}
