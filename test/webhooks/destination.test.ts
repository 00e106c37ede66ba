// Webhook destination safety (spec, Destination rules; src/webhooks/destination.ts): a
// webhook URL must be https on port 443, without credentials, and every address its host
// means or resolves to must be public. Odd spellings of an address are judged by the
// address they mean. No test touches real DNS or the addresses under test: every name
// goes through a fake resolver built from the table below.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { isPublicAddress, type Resolver } from '../../src/webhooks/destination.ts';
import {
  type ApiResponse,
  callApi,
  createTestWorkspace,
  describeEachDatabase,
  type Harness,
  type TestWorkspace,
  testResolver,
  useHarness,
} from '../support/harness.ts';

// ---------------------------------------------------------------------------------------
// 1. isPublicAddress: expected values written from the rules, not read off the function.
// ---------------------------------------------------------------------------------------

const addressTable: Array<[address: string, isPublic: boolean, why: string]> = [
  // IPv4, public unicast and the addresses just outside each refused range.
  ['8.8.8.8', true, 'public DNS resolver'],
  ['1.1.1.1', true, 'public DNS resolver'],
  ['93.184.216.34', true, 'public web host'],
  ['1.0.0.0', true, 'first address after 0.0.0.0/8'],
  ['9.255.255.255', true, 'last address before 10/8'],
  ['11.0.0.0', true, 'first address after 10/8'],
  ['126.255.255.255', true, 'last address before 127/8'],
  ['128.0.0.0', true, 'first address after 127/8'],
  ['100.63.255.255', true, 'last address before 100.64/10'],
  ['100.128.0.0', true, 'first address after 100.64/10'],
  ['169.253.255.255', true, 'last address before 169.254/16'],
  ['169.255.0.0', true, 'first address after 169.254/16'],
  ['172.15.255.255', true, 'last address before 172.16/12'],
  ['172.32.0.0', true, 'first address after 172.16/12'],
  ['192.167.255.255', true, 'last address before 192.168/16'],
  ['192.169.0.0', true, 'first address after 192.168/16'],
  ['192.0.1.0', true, 'between 192.0.0/24 and 192.0.2/24'],
  ['192.0.3.0', true, 'first address after 192.0.2/24'],
  ['198.17.255.255', true, 'last address before 198.18/15'],
  ['198.20.0.0', true, 'first address after 198.18/15'],
  ['223.255.255.255', true, 'last address before multicast 224/4'],
  // IPv4, refused ranges (first, inside and last addresses).
  ['0.0.0.0', false, 'unspecified, 0/8'],
  ['0.255.255.255', false, 'last address of 0/8'],
  ['10.0.0.0', false, 'private 10/8, first'],
  ['10.255.255.255', false, 'private 10/8, last'],
  ['127.0.0.1', false, 'loopback'],
  ['127.255.255.255', false, 'loopback 127/8, last'],
  ['100.64.0.0', false, 'CGNAT 100.64/10, first'],
  ['100.127.255.255', false, 'CGNAT 100.64/10, last'],
  ['100.100.100.200', false, 'Alibaba Cloud metadata (CGNAT)'],
  ['169.254.0.0', false, 'link-local 169.254/16, first'],
  ['169.254.169.254', false, 'cloud metadata (link-local)'],
  ['169.254.255.255', false, 'link-local 169.254/16, last'],
  ['172.16.0.0', false, 'private 172.16/12, first'],
  ['172.31.255.255', false, 'private 172.16/12, last'],
  ['192.168.0.0', false, 'private 192.168/16, first'],
  ['192.168.255.255', false, 'private 192.168/16, last'],
  ['192.0.0.8', false, 'IETF protocol assignments 192.0.0/24'],
  ['192.0.0.192', false, 'Oracle Cloud metadata (192.0.0/24)'],
  ['192.0.2.1', false, 'documentation TEST-NET-1'],
  ['198.51.100.7', false, 'documentation TEST-NET-2'],
  ['203.0.113.9', false, 'documentation TEST-NET-3'],
  ['192.88.99.1', false, '6to4 relay anycast'],
  ['198.18.0.0', false, 'benchmarking 198.18/15, first'],
  ['198.19.255.255', false, 'benchmarking 198.18/15, last'],
  ['224.0.0.1', false, 'multicast, first block'],
  ['239.255.255.255', false, 'multicast, last'],
  ['240.0.0.1', false, 'reserved 240/4'],
  ['255.255.255.255', false, 'limited broadcast'],
  // IPv4 odd spellings (as a resolver might hand them back): judged by what they mean.
  ['2130706433', false, 'decimal spelling of 127.0.0.1'],
  ['0177.0.0.1', false, 'octal spelling of 127.0.0.1'],
  ['0x7f.0.0.1', false, 'hex spelling of 127.0.0.1'],
  ['127.1', false, 'short spelling of 127.0.0.1'],
  ['134744072', true, 'decimal spelling of 8.8.8.8'],
  ['010.010.010.010', true, 'octal spelling of 8.8.8.8'],
  // Not an address at all.
  ['', false, 'empty string'],
  ['not-an-address', false, 'a word'],
  ['hooks.example.com', false, 'a host name'],
  ['999.1.1.1', false, 'an octet out of range'],
  // IPv6, public global unicast.
  ['2606:4700:4700::1111', true, 'public IPv6 resolver'],
  ['2a00:1450:4001::1', true, 'public IPv6 host'],
  ['2001:4860:4860::8888', true, 'public IPv6 resolver'],
  ['2606:2800:220:1:248:1893:25c8:1946', true, 'public IPv6 web host'],
  ['2001:200::1', true, 'first block after the IETF 2001::/23 assignments'],
  ['::ffff:8.8.8.8', true, 'IPv4-mapped form of a public address'],
  ['::ffff:1.1.1.1', true, 'IPv4-mapped form of a public address'],
  // IPv6, refused.
  ['::', false, 'unspecified'],
  ['::1', false, 'loopback'],
  ['fe80::1', false, 'link-local fe80::/10'],
  ['febf:ffff::1', false, 'link-local fe80::/10, last block'],
  ['fe80::1%eth0', false, 'link-local with a zone'],
  ['fec0::1', false, 'deprecated site-local'],
  ['fc00::1', false, 'unique-local fc00::/7, first'],
  ['fd12::1', false, 'unique-local fd00::/8'],
  ['fd00:ec2::254', false, 'AWS IPv6 metadata (unique-local)'],
  ['fdff:ffff::1', false, 'unique-local fc00::/7, last block'],
  ['ff02::1', false, 'multicast all-nodes'],
  ['ff05::1:3', false, 'multicast site-local DHCP'],
  ['100::1', false, 'discard-only 100::/64'],
  ['4000::1', false, 'reserved, outside global unicast 2000::/3'],
  ['fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', false, 'reserved, just below fc00::/7'],
  ['2001:db8::1', false, 'documentation 2001:db8::/32'],
  ['3fff::1', false, 'documentation 3fff::/20'],
  ['2001:2::1', false, 'benchmarking 2001:2::/48'],
  // IPv4 embedded in IPv6: mapped, compatible, SIIT, and the transition prefixes.
  ['::ffff:10.0.0.1', false, 'IPv4-mapped private'],
  ['::ffff:127.0.0.1', false, 'IPv4-mapped loopback'],
  ['::ffff:c0a8:101', false, 'IPv4-mapped 192.168.1.1 in hex'],
  ['::ffff:169.254.169.254', false, 'IPv4-mapped metadata address'],
  ['::ffff:100.64.0.1', false, 'IPv4-mapped CGNAT'],
  ['::ffff:0.0.0.0', false, 'IPv4-mapped unspecified'],
  ['::10.0.0.1', false, 'IPv4-compatible private'],
  ['::127.0.0.1', false, 'IPv4-compatible loopback'],
  ['::808:808', false, 'IPv4-compatible (deprecated ::/96) in hex'],
  // The same address as ::808:808; Node's resolver prints IPv4-compatible answers this way.
  ['::8.8.8.8', false, 'IPv4-compatible (deprecated ::/96) in dotted form'],
  ['::ffff:0:a00:1', false, 'SIIT ::ffff:0:0/96'],
  ['2002:c0a8:0101::1', false, '6to4 embedding 192.168.1.1'],
  ['2002:808:808::1', false, '6to4 prefix, even embedding a public address'],
  ['2001:0:4136:e378::1', false, 'Teredo 2001::/32'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', false, 'Teredo with an embedded client'],
  ['64:ff9b::a00:1', false, 'NAT64 64:ff9b::/96 embedding 10.0.0.1'],
  ['64:ff9b::808:808', false, 'NAT64 prefix, even embedding a public address'],
  ['64:ff9b:1::1', false, 'local-use NAT64 64:ff9b:1::/48'],
];

for (const [address, expected, why] of addressTable) {
  test(`isPublicAddress(${JSON.stringify(address)}) is ${expected ? 'public' : 'not public'}: ${why}`, () => {
    assert.equal(isPublicAddress(address), expected);
  });
}

// ---------------------------------------------------------------------------------------
// The fake DNS. Names the service must refuse by name map to public addresses, so only
// the name rule can refuse them.
// ---------------------------------------------------------------------------------------

const publicV4 = '93.184.216.34';

const dnsTable: Record<string, string[]> = {
  localhost: ['127.0.0.1'],
  'sub.localhost': [publicV4],
  'metadata.google.internal': ['169.254.169.254'],
  'metadata.goog': [publicV4],
  'something.internal': [publicV4],
  'printer.local': [publicV4],
  // Refused by what they resolve to.
  'rebind.test-hooks.net': ['127.0.0.1'],
  'mixed.test-hooks.net': [publicV4, '10.0.0.5'],
  'mixed-v6.test-hooks.net': ['2606:4700:4700::1111', 'fd00::1'],
  'v6private.test-hooks.net': ['fd12::1'],
  'metadata-alias.test-hooks.net': ['169.254.169.254'],
  'ec2-metadata-v6.test-hooks.net': ['fd00:ec2::254'],
  'mapped.test-hooks.net': ['::ffff:192.168.1.1'],
  'nat64.test-hooks.net': ['64:ff9b::a9fe:a9fe'],
  'empty.test-hooks.net': [],
  'loopback6.test-hooks.net': ['::1'],
  'unspecified.test-hooks.net': ['0.0.0.0'],
  'private10.test-hooks.net': ['10.20.30.40'],
  'private172.test-hooks.net': ['172.20.0.1'],
  'private192.test-hooks.net': ['192.168.0.10'],
  'linklocal.test-hooks.net': ['169.254.1.1'],
  'linklocal6.test-hooks.net': ['fe80::1'],
  'cgnat.test-hooks.net': ['100.64.0.7'],
  'multicast.test-hooks.net': ['224.0.0.251'],
  'multicast6.test-hooks.net': ['ff02::fb'],
  'broadcast.test-hooks.net': ['255.255.255.255'],
  'reserved.test-hooks.net': ['240.0.0.1'],
  'benchmark.test-hooks.net': ['198.18.0.1'],
  'documentation.test-hooks.net': ['203.0.113.5'],
  'documentation6.test-hooks.net': ['2001:db8::5'],
  'sixtofour.test-hooks.net': ['2002:a00:1::1'],
  'teredo.test-hooks.net': ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'sitelocal.test-hooks.net': ['fec0::1'],
  // An AAAA answer of ::808:808 (IPv4-compatible) as Node prints it.
  'compat.test-hooks.net': ['::8.8.8.8'],
  'garbage.test-hooks.net': ['not-an-address'],
  'xn--bcher-kva.test-hooks.net': ['10.0.0.1'],
  // Accepted.
  'xn--mller-kva.test-hooks.net': ['93.184.216.36'],
  'multi.test-hooks.net': [publicV4, '2606:2800:220:1:248:1893:25c8:1946', '1.1.1.1', '2a00:1450:4001::1'],
  'mapped-public.test-hooks.net': ['::ffff:8.8.8.8'],
};

/** Like real DNS, an absolute name (one trailing dot) is the same name as without it. */
function dnsLike(table: Record<string, string[]>): Resolver {
  const inner = testResolver(table);
  return { resolve: (hostname) => inner.resolve(hostname.replace(/\.$/, '')) };
}

// ---------------------------------------------------------------------------------------
// 2. Refused destinations.
// ---------------------------------------------------------------------------------------

const unsafeUrls: Array<[why: string, url: string]> = [
  // Scheme.
  ['http scheme', 'http://hooks.example.com/webhooks'],
  ['ftp scheme', 'ftp://hooks.example.com/'],
  ['file scheme', 'file:///etc/passwd'],
  ['javascript scheme', 'javascript:alert(1)'],
  ['data scheme', 'data:text/plain,hello'],
  ['gopher scheme', 'gopher://hooks.example.com/'],
  ['wss scheme', 'wss://hooks.example.com/'],
  ['http scheme on port 443', 'http://hooks.example.com:443/'],
  // Port.
  ['port 80', 'https://hooks.example.com:80/'],
  ['port 8443', 'https://hooks.example.com:8443/'],
  ['port 444', 'https://hooks.example.com:444/'],
  ['port 0', 'https://hooks.example.com:0/'],
  ['port 65535', 'https://hooks.example.com:65535/'],
  // Credentials.
  ['user and password', 'https://user:pass@hooks.example.com/'],
  ['user only', 'https://user@hooks.example.com/'],
  ['password only', 'https://:pass@hooks.example.com/'],
  ['a public name as userinfo before a loopback host', 'https://hooks.example.com@127.0.0.1/'],
  // Local names.
  ['localhost', 'https://localhost/'],
  ['localhost with a trailing dot', 'https://localhost./'],
  ['localhost in capitals', 'https://LOCALHOST/'],
  ['a subdomain of localhost (resolving publicly)', 'https://sub.localhost/'],
  ['localhost in full-width letters', 'https://ｌｏｃａｌｈｏｓｔ/'],
  ['localhost percent-encoded', 'https://loc%61lhost/'],
  ['localhost with two trailing dots', 'https://localhost../'],
  // Loopback, every spelling.
  ['127.0.0.1', 'https://127.0.0.1/'],
  ['127.0.0.1 with a trailing dot', 'https://127.0.0.1./'],
  ['the last loopback address', 'https://127.255.255.254/'],
  ['127.1 (short form)', 'https://127.1/'],
  ['2130706433 (decimal)', 'https://2130706433/'],
  ['0177.0.0.1 (octal)', 'https://0177.0.0.1/'],
  ['0x7f.0.0.1 (hex octet)', 'https://0x7f.0.0.1/'],
  ['0x7f000001 (hex)', 'https://0x7f000001/'],
  ['127.0.0.1 with ideographic full stops', 'https://127。0。0。1/'],
  ['127.0.0.1 percent-encoded', 'https://%31%32%37.0.0.1/'],
  ['[::1]', 'https://[::1]/'],
  ['[::ffff:127.0.0.1]', 'https://[::ffff:127.0.0.1]/'],
  ['[::ffff:7f00:1]', 'https://[::ffff:7f00:1]/'],
  ['[::127.0.0.1] (IPv4-compatible)', 'https://[::127.0.0.1]/'],
  // Unspecified.
  ['0.0.0.0', 'https://0.0.0.0/'],
  ['0 (means 0.0.0.0)', 'https://0/'],
  ['[::]', 'https://[::]/'],
  // Private, link-local, CGNAT, metadata.
  ['10.1.2.3', 'https://10.1.2.3/'],
  ['172.16.0.1', 'https://172.16.0.1/'],
  ['172.31.255.255', 'https://172.31.255.255/'],
  ['192.168.1.1', 'https://192.168.1.1/'],
  ['169.254.169.254 (cloud metadata)', 'https://169.254.169.254/latest/meta-data/'],
  ['[::ffff:169.254.169.254]', 'https://[::ffff:169.254.169.254]/'],
  ['[fd00:ec2::254] (AWS IPv6 metadata)', 'https://[fd00:ec2::254]/'],
  ['100.100.100.200 (Alibaba Cloud metadata)', 'https://100.100.100.200/'],
  ['192.0.0.192 (Oracle Cloud metadata)', 'https://192.0.0.192/'],
  ['[fe80::1] (link-local)', 'https://[fe80::1]/'],
  ['[fc00::1] (unique-local)', 'https://[fc00::1]/'],
  ['[fec0::1] (site-local)', 'https://[fec0::1]/'],
  ['100.64.0.1 (CGNAT)', 'https://100.64.0.1/'],
  // Multicast, broadcast, reserved, documentation, benchmarking.
  ['224.0.0.1 (multicast)', 'https://224.0.0.1/'],
  ['239.255.255.255 (multicast)', 'https://239.255.255.255/'],
  ['[ff02::1] (multicast)', 'https://[ff02::1]/'],
  ['255.255.255.255 (broadcast)', 'https://255.255.255.255/'],
  ['192.0.2.10 (documentation)', 'https://192.0.2.10/'],
  ['198.51.100.7 (documentation)', 'https://198.51.100.7/'],
  ['203.0.113.9 (documentation)', 'https://203.0.113.9/'],
  ['198.18.0.1 (benchmarking)', 'https://198.18.0.1/'],
  ['240.0.0.1 (reserved)', 'https://240.0.0.1/'],
  ['[2001:db8::1] (documentation)', 'https://[2001:db8::1]/'],
  // IPv6 transition prefixes and IPv4-compatible.
  ['[2002:7f00:1::1] (6to4 of loopback)', 'https://[2002:7f00:1::1]/'],
  ['[2002:c0a8:101::1] (6to4 of 192.168.1.1)', 'https://[2002:c0a8:101::1]/'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2] (Teredo)', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
  ['[64:ff9b::7f00:1] (NAT64 of loopback)', 'https://[64:ff9b::7f00:1]/'],
  ['[64:ff9b::a9fe:a9fe] (NAT64 of the metadata address)', 'https://[64:ff9b::a9fe:a9fe]/'],
  ['[64:ff9b:1::a00:1] (local-use NAT64)', 'https://[64:ff9b:1::a00:1]/'],
  ['[::808:808] (IPv4-compatible)', 'https://[::808:808]/'],
  // Metadata and internal names.
  ['metadata.google.internal', 'https://metadata.google.internal/computeMetadata/v1/'],
  ['metadata.google.internal with a trailing dot', 'https://metadata.google.internal./'],
  ['METADATA.GOOGLE.INTERNAL', 'https://METADATA.GOOGLE.INTERNAL/'],
  ['metadata.goog (resolving publicly)', 'https://metadata.goog/'],
  ['a .internal name (resolving publicly)', 'https://something.internal/'],
  ['a .local name (resolving publicly)', 'https://printer.local/'],
  ['a .local name in full-width letters', 'https://printer.ｌｏｃａｌ/'],
  ['a .internal name with two trailing dots (resolving publicly)', 'https://something.internal../'],
  ['a .local name with two trailing dots (resolving publicly)', 'https://printer.local../'],
  // Names judged by what they resolve to.
  ['an IDN host resolving to a private address', 'https://bücher.test-hooks.net/'],
  ['a name that does not resolve', 'https://nowhere.test-hooks.net/'],
  ['a name resolving to no address', 'https://empty.test-hooks.net/'],
  ['a name resolving to loopback (DNS rebinding)', 'https://rebind.test-hooks.net/'],
  ['a name with one private address among public ones', 'https://mixed.test-hooks.net/'],
  ['a name with one unique-local IPv6 among public ones', 'https://mixed-v6.test-hooks.net/'],
  ['a name resolving to unique-local IPv6', 'https://v6private.test-hooks.net/'],
  ['a name resolving to the metadata address', 'https://metadata-alias.test-hooks.net/'],
  ['a name resolving to the AWS IPv6 metadata address', 'https://ec2-metadata-v6.test-hooks.net/'],
  ['a name resolving to an IPv4-mapped private address', 'https://mapped.test-hooks.net/'],
  ['a name resolving to NAT64 of the metadata address', 'https://nat64.test-hooks.net/'],
  ['a name resolving to IPv6 loopback', 'https://loopback6.test-hooks.net/'],
  ['a name resolving to 0.0.0.0', 'https://unspecified.test-hooks.net/'],
  ['a name resolving to 10/8', 'https://private10.test-hooks.net/'],
  ['a name resolving to 172.16/12', 'https://private172.test-hooks.net/'],
  ['a name resolving to 192.168/16', 'https://private192.test-hooks.net/'],
  ['a name resolving to link-local IPv4', 'https://linklocal.test-hooks.net/'],
  ['a name resolving to link-local IPv6', 'https://linklocal6.test-hooks.net/'],
  ['a name resolving to CGNAT', 'https://cgnat.test-hooks.net/'],
  ['a name resolving to IPv4 multicast', 'https://multicast.test-hooks.net/'],
  ['a name resolving to IPv6 multicast', 'https://multicast6.test-hooks.net/'],
  ['a name resolving to broadcast', 'https://broadcast.test-hooks.net/'],
  ['a name resolving to 240/4', 'https://reserved.test-hooks.net/'],
  ['a name resolving to benchmarking 198.18/15', 'https://benchmark.test-hooks.net/'],
  ['a name resolving to IPv4 documentation', 'https://documentation.test-hooks.net/'],
  ['a name resolving to IPv6 documentation', 'https://documentation6.test-hooks.net/'],
  ['a name resolving to 6to4', 'https://sixtofour.test-hooks.net/'],
  ['a name resolving to Teredo', 'https://teredo.test-hooks.net/'],
  ['a name resolving to site-local IPv6', 'https://sitelocal.test-hooks.net/'],
  ['a name resolving to IPv4-compatible ::808:808', 'https://compat.test-hooks.net/'],
  ['a name resolving to something that is not an address', 'https://garbage.test-hooks.net/'],
];

const invalidUrls: Array<[why: string, url: string]> = [
  ['words', 'not a url'],
  ['no scheme', 'hooks.example.com/path'],
  ['a scheme-relative URL', '//hooks.example.com/x'],
  ['a scheme and nothing else', 'https://'],
  ['http scheme and nothing else', 'http://'],
  ['a space in the host', 'https://exa mple.com/'],
  ['an empty string', ''],
  ['a leading space', ' https://hooks.example.com/'],
  ['a tab inside', 'https://hooks.exam\tple.com/'],
  ['a newline inside', 'https://hooks.example.com/\nwebhooks'],
  ['a NUL inside', 'https://hooks.example.com/\u0000'],
  ['3000 characters', `https://hooks.example.com/${'a'.repeat(3000 - 'https://hooks.example.com/'.length)}`],
  ['port 65536', 'https://hooks.example.com:65536/'],
  ['a non-numeric port', 'https://hooks.example.com:https/'],
  ['an unclosed IPv6 bracket', 'https://[::1/'],
  ['an IPv6 zone', 'https://[fe80::1%25en0]/'],
  ['an IPv4 octet above 255', 'https://256.0.0.1/'],
  ['five IPv4 parts', 'https://1.2.3.4.5/'],
];

/** URLs only a developer's machine should use: refused unless SIGNET_WEBHOOK_ALLOW_UNSAFE. */
const developmentUrls = ['http://127.0.0.1:8080/hook', 'https://localhost:3000/x', 'http://10.0.0.1/'];

// ---------------------------------------------------------------------------------------
// 3. Accepted destinations: [why, input, the normalised URL stored and returned].
// ---------------------------------------------------------------------------------------

const acceptedUrls: Array<[why: string, url: string, normalised: string]> = [
  ['a public name', 'https://hooks.example.com/webhooks', 'https://hooks.example.com/webhooks'],
  ['port 443 written out', 'https://hooks.example.com:443/x', 'https://hooks.example.com/x'],
  ['port 443 with a leading zero', 'https://hooks.example.com:0443/y', 'https://hooks.example.com/y'],
  [
    'capitals, a query and a fragment',
    'HTTPS://HOOKS.EXAMPLE.COM/Path?q=1#frag',
    'https://hooks.example.com/Path?q=1#frag',
  ],
  // An absolute name is the same host; the URL keeps the dot as written.
  [
    'a public name with a trailing dot',
    'https://hooks.example.com./trailing-dot',
    'https://hooks.example.com./trailing-dot',
  ],
  ['a public IPv4 literal', 'https://93.184.216.34/', 'https://93.184.216.34/'],
  ['a public IPv4 literal in decimal', 'https://134744072/', 'https://8.8.8.8/'],
  ['172.32.0.1, just past 172.16/12', 'https://172.32.0.1/', 'https://172.32.0.1/'],
  ['100.128.0.1, just past 100.64/10', 'https://100.128.0.1/', 'https://100.128.0.1/'],
  ['198.20.0.1, just past 198.18/15', 'https://198.20.0.1/', 'https://198.20.0.1/'],
  ['a public IPv6 literal', 'https://[2606:4700:4700::1111]/', 'https://[2606:4700:4700::1111]/'],
  ['an IPv4-mapped public literal', 'https://[::ffff:8.8.8.8]/', 'https://[::ffff:808:808]/'],
  [
    'an IDN host resolving publicly',
    'https://müller.test-hooks.net/hook',
    'https://xn--mller-kva.test-hooks.net/hook',
  ],
  [
    'a name resolving to several public addresses of both families',
    'https://multi.test-hooks.net/events',
    'https://multi.test-hooks.net/events',
  ],
  [
    'a name resolving to IPv4 and IPv6',
    'https://api.example.org/v1/events',
    'https://api.example.org/v1/events',
  ],
  [
    'a name resolving to an IPv4-mapped public address',
    'https://mapped-public.test-hooks.net/',
    'https://mapped-public.test-hooks.net/',
  ],
];

const events = ['document.sent'];
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const secretPattern = /^whsec_[A-Za-z0-9_-]{43,}$/;

interface Endpoint {
  id: string;
  url: string;
  events: string[];
  enabled: boolean;
  description: string | null;
  failureCount: number;
  disabledReason: string | null;
  secret?: string;
}

const label = (url: string) => {
  const shown = JSON.stringify(url);
  return shown.length > 70 ? `${shown.slice(0, 60)}…(${url.length} chars)` : shown;
};

function createEndpoint(h: Harness, ws: TestWorkspace, url: string): Promise<ApiResponse> {
  return callApi(h, 'POST', '/v1/webhook-endpoints', { key: ws.apiKey, body: { url, events } });
}

async function assertRefused(
  h: Harness,
  ws: TestWorkspace,
  res: ApiResponse,
  error: 'unsafe-url' | 'invalid-url',
): Promise<void> {
  // A destination accepted by mistake is deleted, so one failure does not leak into the next test.
  const id = res.status === 201 ? (res.body.data as Endpoint).id : null;
  if (id) await callApi(h, 'DELETE', `/v1/webhook-endpoints/${id}`, { key: ws.apiKey });
  assert.deepEqual([res.status, res.body], [400, { ok: false, error }]);
}

/** Creates an endpoint that must be accepted, checks the response, and deletes it. */
async function assertAccepted(h: Harness, ws: TestWorkspace, url: string, normalised: string): Promise<void> {
  assert.equal(normalised, new URL(url).href, 'the table states the WHATWG normalisation');
  const res = await createEndpoint(h, ws, url);
  assert.equal(res.status, 201, res.text);
  const created = res.body.data as Endpoint;
  assert.equal(res.body.ok, true);
  assert.equal(created.url, normalised);
  assert.deepEqual(created.events, events);
  assert.equal(created.enabled, true);
  assert.equal(created.failureCount, 0);
  assert.equal(created.disabledReason, null);
  assert.match(created.id, uuidPattern);
  assert.match(created.secret ?? '', secretPattern);
  const fetched = await callApi(h, 'GET', `/v1/webhook-endpoints/${created.id}`, { key: ws.apiKey });
  assert.equal(fetched.status, 200);
  assert.equal((fetched.body.data as Endpoint).url, normalised);
  const deleted = await callApi(h, 'DELETE', `/v1/webhook-endpoints/${created.id}`, { key: ws.apiKey });
  assert.deepEqual(
    [deleted.status, deleted.body],
    [200, { ok: true, data: { id: created.id, deleted: true } }],
  );
}

describeEachDatabase('Webhook destinations', (kind) => {
  const h = useHarness(kind, { resolver: dnsLike(dnsTable) });
  let ws: TestWorkspace;
  before(async () => {
    ws = await createTestWorkspace(h.ctx);
  });

  for (const [why, url] of unsafeUrls) {
    test(`POST refuses ${why} with 400 unsafe-url: ${label(url)}`, async () => {
      await assertRefused(h, ws, await createEndpoint(h, ws, url), 'unsafe-url');
    });
  }

  for (const [why, url] of invalidUrls) {
    test(`POST answers 400 invalid-url for ${why}: ${label(url)}`, async () => {
      await assertRefused(h, ws, await createEndpoint(h, ws, url), 'invalid-url');
    });
  }

  for (const url of developmentUrls) {
    test(`POST refuses the development URL ${url} by default with 400 unsafe-url`, async () => {
      await assertRefused(h, ws, await createEndpoint(h, ws, url), 'unsafe-url');
    });
  }

  test('no refused destination left an endpoint behind', async () => {
    const res = await callApi(h, 'GET', '/v1/webhook-endpoints', { key: ws.apiKey });
    assert.deepEqual([res.status, res.body], [200, { ok: true, data: [], nextCursor: null }]);
  });

  for (const [why, url, normalised] of acceptedUrls) {
    test(`POST accepts ${why} with 201 and stores ${normalised}: ${label(url)}`, async () => {
      await assertAccepted(h, ws, url, normalised);
    });
  }

  // 4. PATCH runs the same checks on a new url and changes nothing when it refuses.
  const original = 'https://hooks.example.com/original';
  let patched: Endpoint;
  let patchWs: TestWorkspace;
  before(async () => {
    patchWs = await createTestWorkspace(h.ctx);
    const res = await createEndpoint(h, patchWs, original);
    assert.equal(res.status, 201, res.text);
    patched = res.body.data as Endpoint;
  });

  const patchRefusals: Array<[why: string, url: string, error: 'unsafe-url' | 'invalid-url']> = [
    ...unsafeUrls.map(([why, url]): [string, string, 'unsafe-url'] => [why, url, 'unsafe-url']),
    ...invalidUrls.map(([why, url]): [string, string, 'invalid-url'] => [why, url, 'invalid-url']),
  ];
  for (const [why, url, error] of patchRefusals) {
    test(`PATCH to ${why} is 400 ${error} and the endpoint keeps its url and events: ${label(url)}`, async () => {
      const res = await callApi(h, 'PATCH', `/v1/webhook-endpoints/${patched.id}`, {
        key: patchWs.apiKey,
        body: { url, events: ['document.completed'] },
      });
      const fetched = await callApi(h, 'GET', `/v1/webhook-endpoints/${patched.id}`, { key: patchWs.apiKey });
      const endpoint = fetched.body.data as Endpoint;
      // A change accepted by mistake is undone, so one failure does not leak into the next test.
      if (endpoint.url !== original || endpoint.events.join() !== events.join()) {
        await callApi(h, 'PATCH', `/v1/webhook-endpoints/${patched.id}`, {
          key: patchWs.apiKey,
          body: { url: original, events },
        });
      }
      assert.deepEqual([res.status, res.body], [400, { ok: false, error }]);
      assert.equal(fetched.status, 200);
      assert.deepEqual([endpoint.url, endpoint.events], [original, events]);
    });
  }

  for (const [why, url, normalised] of acceptedUrls) {
    test(`PATCH to ${why} is 200 with the url ${normalised}: ${label(url)}`, async () => {
      const res = await callApi(h, 'PATCH', `/v1/webhook-endpoints/${patched.id}`, {
        key: patchWs.apiKey,
        body: { url },
      });
      assert.equal(res.status, 200, res.text);
      assert.equal((res.body.data as Endpoint).url, normalised);
      assert.equal((res.body.data as Endpoint).secret, undefined);
      const fetched = await callApi(h, 'GET', `/v1/webhook-endpoints/${patched.id}`, { key: patchWs.apiKey });
      assert.equal((fetched.body.data as Endpoint).url, normalised);
    });
  }
});

// ---------------------------------------------------------------------------------------
// 5. SIGNET_WEBHOOK_ALLOW_UNSAFE=1: http, any port, private and loopback addresses.
// ---------------------------------------------------------------------------------------

describeEachDatabase('Webhook destinations with SIGNET_WEBHOOK_ALLOW_UNSAFE=1', (kind) => {
  const h = useHarness(kind, { env: { SIGNET_WEBHOOK_ALLOW_UNSAFE: '1' }, resolver: dnsLike(dnsTable) });
  let ws: TestWorkspace;
  before(async () => {
    ws = await createTestWorkspace(h.ctx);
  });

  const allowed: Array<[why: string, url: string]> = [
    ...developmentUrls.map((url): [string, string] => ['a development URL', url]),
    ['http on IPv6 loopback with a port', 'http://[::1]:8080/hook'],
    ['a name resolving to a private address', 'https://private10.test-hooks.net/'],
    ['a .local name', 'https://printer.local/'],
  ];
  for (const [why, url] of allowed) {
    test(`accepts ${why} with 201: ${url}`, async () => {
      await assertAccepted(h, ws, url, new URL(url).href);
    });
  }

  const stillRefused: Array<[why: string, url: string, error: 'unsafe-url' | 'invalid-url']> = [
    ['words', 'not a url', 'invalid-url'],
    ['a URL with a newline', 'http://127.0.0.1:8080/\nhook', 'invalid-url'],
    ['user and password', 'https://user:pass@hooks.example.com/', 'unsafe-url'],
    ['credentials on a loopback URL', 'http://admin:admin@127.0.0.1:8080/', 'unsafe-url'],
    ['ftp scheme', 'ftp://127.0.0.1/', 'unsafe-url'],
    ['file scheme', 'file:///etc/passwd', 'unsafe-url'],
    ['a name that does not resolve', 'https://nowhere.test-hooks.net/', 'unsafe-url'],
    ['a name resolving to no address', 'https://empty.test-hooks.net/', 'unsafe-url'],
  ];
  for (const [why, url, error] of stillRefused) {
    test(`still refuses ${why} with 400 ${error}: ${label(url)}`, async () => {
      await assertRefused(h, ws, await createEndpoint(h, ws, url), error);
    });
  }
});
