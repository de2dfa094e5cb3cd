import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { PersistedToken } from '../security/auth';
import type { ClientSettings } from './settings';
import type { IdempotencyRecord } from './store';
import type { Transaction } from './types';

export interface PersistedState {
	version: 1;
	savedAt: string;
	clients: Array<{ settings: ClientSettings; tokenGeneration: number }>;
	transactions: Transaction[];
	idempotency: Array<[string, IdempotencyRecord]>;
	tokens: PersistedToken[];
	clockOffsetSeconds: number;
}

export function loadState(path: string): PersistedState | null {
	if (!existsSync(path)) return null;
	const parsed = JSON.parse(readFileSync(path, 'utf8')) as PersistedState;
	if (parsed.version !== 1) throw new Error(`unsupported sandbox state version in ${path}`);
	return parsed;
}

/** Debounced writes on change, plus a final synchronous write on close; each write is atomic (tmp + rename). */
export class StateWriter {
	private timer: NodeJS.Timeout | null = null;

	constructor(
		private readonly path: string,
		private readonly snapshot: () => PersistedState,
		private readonly debounceMs = 100,
	) {}

	markDirty(): void {
		if (this.timer) return;
		this.timer = setTimeout(() => {
			this.timer = null;
			this.writeNow();
		}, this.debounceMs);
		this.timer.unref();
	}

	writeNow(): void {
		if (this.timer) {
			clearTimeout(this.timer);
			this.timer = null;
		}
		const temporary = `${this.path}.${process.pid}.tmp`;
		writeFileSync(temporary, JSON.stringify(this.snapshot()));
		renameSync(temporary, this.path);
	}
}
