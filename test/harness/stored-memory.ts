/** Readers of the Money Trigger memory as n8n stores it in a workflow's static data (docs/webhook-memory.md). */

type StaticData = Record<string, any> | null | undefined;

/** Each trigger node's stored memory: `{events, statuses}`, each a JSON text of pairs. */
function nodeMemories(staticData: StaticData): Array<{ events?: string; statuses?: string }> {
	const memory = staticData && staticData.global && staticData.global.moneyTriggerMemory;
	return Object.values((memory && memory.nodes) || {});
}

function pairs(text: unknown): Array<[string, unknown]> {
	return typeof text === 'string' ? (JSON.parse(text) as Array<[string, unknown]>) : [];
}

/**
 * The event ids the Money Trigger memories hold in a workflow's static data (as n8n's API returns
 * it): every trigger node's memory under `global`, and the older per-node `seenEvents`.
 */
export function storedEventIds(staticData: StaticData): Set<string> {
	const ids = new Set<string>();
	for (const memory of nodeMemories(staticData)) for (const [id] of pairs(memory.events)) ids.add(id);
	for (const [key, value] of Object.entries(staticData || {})) {
		if (!key.startsWith('node:') || !value || typeof value.seenEvents !== 'object') continue;
		for (const seen of Object.keys(value.seenEvents)) ids.add(seen.startsWith('e:') ? seen.slice(2) : seen);
	}
	return ids;
}

/** The last status per reference (`charge:<reference>`) the memories hold, every trigger node merged. */
export function storedStatuses(staticData: StaticData): Map<string, string> {
	const statuses = new Map<string, string>();
	for (const memory of nodeMemories(staticData)) for (const [key, status] of pairs(memory.statuses)) statuses.set(key, String(status));
	for (const [key, value] of Object.entries(staticData || {})) {
		if (!key.startsWith('node:') || !value || typeof value.statuses !== 'object') continue;
		for (const [reference, status] of Object.entries(value.statuses as Record<string, string>)) statuses.set(reference, status);
	}
	return statuses;
}
