// What Signet accepts as an email address, wherever one is typed (recipients, sign-up,
// invitations): something@domain.tld, at most 254 characters (RFC 5321's path limit).
const emailPattern = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmailAddress(address: string): boolean {
  return address.length <= 254 && emailPattern.test(address);
}
