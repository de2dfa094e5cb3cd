/** A create item the API accepted: `created` now, or `replayed` from the API's idempotency record (docs/decisions.md#d8-output). */
export function accepted(item: { outcome?: unknown } | null | undefined): boolean {
	return item?.outcome === 'created' || item?.outcome === 'replayed';
}
