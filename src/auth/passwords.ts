// The password helpers live in access/passwords.ts (commands need them and may not import auth);
// this re-export keeps imports written before the move working until their branches merge.
export { hashPassword, verifyPassword } from '../access/passwords.js';
