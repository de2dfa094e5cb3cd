import type { DirectoryEntry } from './settings';
import type { AccountType, IdentifierType } from './types';

export const DEFAULT_DIRECTORY: DirectoryEntry[] = [
	{ identifier: 'GM-1001', type: 'gm_account', accountType: 'Client', name: 'Afi Mensah', eligible: true },
	{ identifier: 'GM-1002', type: 'gm_account', accountType: 'Driver', name: 'Kossi Agbeko', eligible: true },
	{ identifier: 'GM-1003', type: 'gm_account', accountType: 'Merchant', name: 'Boutique Lome', eligible: true },
	{ identifier: 'GM-1099', type: 'gm_account', accountType: 'Client', name: 'Frozen Account', eligible: false },
	{ identifier: '+22890000001', type: 'phone', accountType: 'Client', name: 'Ama Koffi', eligible: true },
	{ identifier: '+22890000001', type: 'phone', accountType: 'Driver', name: 'Ama Koffi (driver)', eligible: true },
	{ identifier: '+22890000002', type: 'phone', accountType: 'Driver', name: 'Yao Dossou', eligible: true },
	{ identifier: '+22890000003', type: 'phone', accountType: 'Merchant', name: 'Marche Central', eligible: true },
	{ identifier: '+22890000099', type: 'phone', accountType: 'Client', name: 'Suspended Wallet', eligible: false },
];

export const INELIGIBLE_IDENTIFIERS = {
	gm_account: 'GM-1099',
	phone: '+22890000099',
} as const;

export const UNKNOWN_IDENTIFIERS = {
	gm_account: 'GM-0000',
	phone: '+22899999999',
} as const;

export type Resolution =
	| { outcome: 'found'; entry: DirectoryEntry | null }
	| { outcome: 'not_found' }
	| { outcome: 'not_eligible'; entry: DirectoryEntry };

export interface PublicDirectoryEntry {
	identifier: string;
	type: IdentifierType;
	account_type: AccountType;
}

export class Directory {
	private readonly byIdentifier = new Map<string, DirectoryEntry[]>();

	constructor(entries: DirectoryEntry[]) {
		for (const entry of entries) {
			const key = `${entry.type}:${entry.identifier}`;
			const list = this.byIdentifier.get(key) ?? [];
			list.push(entry);
			this.byIdentifier.set(key, list);
		}
	}

	/**
	 * A gm_account identifier names one account. A phone may hold one account per type, so a given
	 * account type picks the entry (required on `platform`; elsewhere it only resolves the display name).
	 */
	resolve(identifier: string, type: IdentifierType, accountType: AccountType | undefined): Resolution {
		const candidates = this.byIdentifier.get(`${type}:${identifier}`);
		if (!candidates || candidates.length === 0) return { outcome: 'not_found' };
		const entry = accountType && type === 'phone' ? candidates.find((candidate) => candidate.accountType === accountType) : candidates[0];
		if (!entry) return { outcome: 'not_found' };
		if (!entry.eligible) return { outcome: 'not_eligible', entry };
		return { outcome: 'found', entry };
	}

	eligibleSamples(): PublicDirectoryEntry[] {
		const samples: PublicDirectoryEntry[] = [];
		for (const entries of this.byIdentifier.values()) {
			for (const entry of entries) {
				if (entry.eligible) samples.push({ identifier: entry.identifier, type: entry.type, account_type: entry.accountType });
			}
		}
		return samples;
	}

	eligibleEntries(): DirectoryEntry[] {
		return [...this.byIdentifier.values()].flat().filter((entry) => entry.eligible);
	}
}
