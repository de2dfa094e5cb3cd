/** Readers of the Money Trigger memory as n8n stores it in a workflow's static data (docs/webhook-memory.md). */

/**
 * The event ids a Money Trigger memory holds in a workflow's static data (as n8n's API returns it):
 * the memory of every trigger node under `global`, and the older per-node `seenEvents`.
 */
export function storedEventIds(staticData: Record<string, any> | null | undefined): Set<string> {
	const ids = new Set<string>();
	const collect = (seen: unknown) => {
		if (!seen || typeof seen !== 'object') return;
		for (const key of Object.keys(seen)) ids.add(key.startsWith('e:') ? key.slice(2) : key);
	};
	for (const [key, value] of Object.entries(staticData || {})) {
		if (key.startsWith('node:')) collect(value && value.seenEvents);
	}
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	for (const nodeMemory of Object.values((memory && memory.nodes) || {})) collect((nodeMemory as { seenEvents?: unknown }).seenEvents);
	return ids;
}

/** The last status per reference (`charge:<reference>`) the memories hold, every trigger node merged. */
export function storedStatuses(staticData: Record<string, any> | null | undefined): Map<string, string> {
	const statuses = new Map<string, string>();
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	for (const nodeMemory of Object.values((memory && memory.nodes) || {})) {
		for (const [key, status] of Object.entries((nodeMemory as { statuses?: Record<string, string> }).statuses || {})) statuses.set(key, status);
	}
	for (const [key, value] of Object.entries(staticData || {})) {
		if (!key.startsWith('node:') || !value || typeof value.statuses !== 'object') continue;
		for (const [reference, status] of Object.entries(value.statuses as Record<string, string>)) statuses.set(reference, status);
	}
	return statuses;
}
