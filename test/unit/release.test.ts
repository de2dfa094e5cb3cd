import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

/**
 * `npm run release` is `n8n-node release`, which runs release-it non-interactively: without the
 * repository's `.release-it.json` ("increment": false) that bumps the patch (1.0.0 would be
 * released as 1.0.1). The version is set in package.json and CHANGELOG.md by a reviewed commit;
 * release-it tags and releases it (RELEASING.md).
 */
describe('npm run release', () => {
	it('releases the version package.json holds, not a bump of it', () => {
		const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'money-release-'));
		try {
			for (const file of ['package.json', '.release-it.json']) fs.copyFileSync(path.join(REPO, file), path.join(dir, file));
			fs.symlinkSync(path.join(REPO, 'node_modules'), path.join(dir, 'node_modules'));
			const git = (...args: string[]) => spawnSync('git', ['-c', 'user.email=test@example.com', '-c', 'user.name=test', ...args], { cwd: dir, encoding: 'utf8' });
			git('init', '-q', '-b', 'main');
			git('add', 'package.json', '.release-it.json');
			git('commit', '-qm', 'release');
			git('init', '-q', '--bare', 'origin.git');
			git('remote', 'add', 'origin', path.join(dir, 'origin.git'));
			const run = spawnSync(
				process.execPath,
				[path.join(REPO, 'node_modules', 'release-it', 'bin', 'release-it.js'), '-n', '--release-version', '--npm.publish=false', '--no-git.requireUpstream', '--git.requireBranch', 'main'],
				{ cwd: dir, encoding: 'utf8' },
			);
			const version = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')).version;
			expect({ status: run.status, printed: run.stdout.trim() }).toEqual({ status: 0, printed: version });
		} finally {
			fs.rmSync(dir, { recursive: true, force: true });
		}
	}, 60_000);
});
