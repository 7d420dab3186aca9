//! Bodies of the exact vector math functions
//! ([`lanewise_ir::exact_math`]), as LLVM IR text linked into a module that
//! calls them ([`crate::module::LlvmModule::link_exact_math`]).
//!
//! Each is a lane-parallel transcription of glibc's x86-64 function as it
//! runs on a CPU with FMA and AVX2, where glibc's ifunc picks the builds of
//! `sysdeps/ieee754/flt-32/e_expf.c`, `e_logf.c`, `dbl-64/e_exp.c` and
//! `e_log.c` (Szabolcs Nagy's algorithms)
//! compiled with `-mfma -mavx2`: every double operation of that machine
//! code, in its order, with the same fused multiply-adds (read off the
//! disassembly of Debian 12's glibc 2.36 `libm.so.6`; GCC fused `InvLn2N *
//! x + Shift` and `InvLn2N * x - kd` in `expf`, `z * invc - 1` and `k *
//! Ln2 + logc` in `logf`, six steps of `exp`, and in `log`'s path near 1.0
//! even `r + w - w`), and the same constants and tables. `log` computes
//! both of its paths and blends them. So a lane's result has the scalar
//! call's bits: crates/lanewise/tests/exact_math.rs,
//! tests/programs/float_exp_log.c and the README's exhaustive check compare
//! them against the host's glibc; other glibc versions are assumed to run
//! the same code.
//!
//! The tables (32 values of 2^(i/32) for `expf`, 16 pairs of 1/c and
//! log(c) for `logf`, 128 pairs for `exp` and `log`) are gathered from
//! private constants: they stay in L1. Inputs outside the fast path (see
//! the IR module's docs) go through the scalar function, active lanes
//! only, in lane order.

use lanewise_ir::exact_math::ExactMathFunction;
use std::fmt::Write;

/// `expf`'s table: `asuint64(2^(i/32)) - (i << 47)`.
const EXPF_TABLE: [u64; 32] = [
    0x3ff0000000000000,
    0x3fefd9b0d3158574,
    0x3fefb5586cf9890f,
    0x3fef9301d0125b51,
    0x3fef72b83c7d517b,
    0x3fef54873168b9aa,
    0x3fef387a6e756238,
    0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715,
    0x3feef1a7373aa9cb,
    0x3feedea64c123422,
    0x3feece086061892d,
    0x3feebfdad5362a27,
    0x3feeb42b569d4f82,
    0x3feeab07dd485429,
    0x3feea47eb03a5585,
    0x3feea09e667f3bcd,
    0x3fee9f75e8ec5f74,
    0x3feea11473eb0187,
    0x3feea589994cce13,
    0x3feeace5422aa0db,
    0x3feeb737b0cdc5e5,
    0x3feec49182a3f090,
    0x3feed503b23e255d,
    0x3feee89f995ad3ad,
    0x3feeff76f2fb5e47,
    0x3fef199bdd85529c,
    0x3fef3720dcef9069,
    0x3fef5818dcfba487,
    0x3fef7c97337b9b5f,
    0x3fefa4afa2a490da,
    0x3fefd0765b6e4540,
];

/// `expf`'s constants: 32/ln(2), the rounding shift 1.5 * 2^52, and the
/// polynomial's coefficients C0..C2 (scaled by 1/32^3, 1/32^2, 1/32).
const EXPF_INV_LN2_N: u64 = 0x40471547652b82fe; // 0x1.71547652b82fep+5
const EXPF_SHIFT: u64 = 0x4338000000000000; // 0x1.8p+52
const EXPF_POLY: [u64; 3] = [0x3ebc6af84b912394, 0x3f2ebfce50fac4f3, 0x3f962e42ff0c52d6];

/// `exp`'s table: 128 pairs of (the tail of 2^(i/128), the bits of
/// 2^(i/128) with the exponent bits of i/128 taken out).
const EXP_TABLE: [u64; 256] = [
    0x0000000000000000,
    0x3ff0000000000000,
    0x3c9b3b4f1a88bf6e,
    0x3feff63da9fb3335,
    0xbc7160139cd8dc5d,
    0x3fefec9a3e778061,
    0xbc905e7a108766d1,
    0x3fefe315e86e7f85,
    0x3c8cd2523567f613,
    0x3fefd9b0d3158574,
    0xbc8bce8023f98efa,
    0x3fefd06b29ddf6de,
    0x3c60f74e61e6c861,
    0x3fefc74518759bc8,
    0x3c90a3e45b33d399,
    0x3fefbe3ecac6f383,
    0x3c979aa65d837b6d,
    0x3fefb5586cf9890f,
    0x3c8eb51a92fdeffc,
    0x3fefac922b7247f7,
    0x3c3ebe3d702f9cd1,
    0x3fefa3ec32d3d1a2,
    0xbc6a033489906e0b,
    0x3fef9b66affed31b,
    0xbc9556522a2fbd0e,
    0x3fef9301d0125b51,
    0xbc5080ef8c4eea55,
    0x3fef8abdc06c31cc,
    0xbc91c923b9d5f416,
    0x3fef829aaea92de0,
    0x3c80d3e3e95c55af,
    0x3fef7a98c8a58e51,
    0xbc801b15eaa59348,
    0x3fef72b83c7d517b,
    0xbc8f1ff055de323d,
    0x3fef6af9388c8dea,
    0x3c8b898c3f1353bf,
    0x3fef635beb6fcb75,
    0xbc96d99c7611eb26,
    0x3fef5be084045cd4,
    0x3c9aecf73e3a2f60,
    0x3fef54873168b9aa,
    0xbc8fe782cb86389d,
    0x3fef4d5022fcd91d,
    0x3c8a6f4144a6c38d,
    0x3fef463b88628cd6,
    0x3c807a05b0e4047d,
    0x3fef3f49917ddc96,
    0x3c968efde3a8a894,
    0x3fef387a6e756238,
    0x3c875e18f274487d,
    0x3fef31ce4fb2a63f,
    0x3c80472b981fe7f2,
    0x3fef2b4565e27cdd,
    0xbc96b87b3f71085e,
    0x3fef24dfe1f56381,
    0x3c82f7e16d09ab31,
    0x3fef1e9df51fdee1,
    0xbc3d219b1a6fbffa,
    0x3fef187fd0dad990,
    0x3c8b3782720c0ab4,
    0x3fef1285a6e4030b,
    0x3c6e149289cecb8f,
    0x3fef0cafa93e2f56,
    0x3c834d754db0abb6,
    0x3fef06fe0a31b715,
    0x3c864201e2ac744c,
    0x3fef0170fc4cd831,
    0x3c8fdd395dd3f84a,
    0x3feefc08b26416ff,
    0xbc86a3803b8e5b04,
    0x3feef6c55f929ff1,
    0xbc924aedcc4b5068,
    0x3feef1a7373aa9cb,
    0xbc9907f81b512d8e,
    0x3feeecae6d05d866,
    0xbc71d1e83e9436d2,
    0x3feee7db34e59ff7,
    0xbc991919b3ce1b15,
    0x3feee32dc313a8e5,
    0x3c859f48a72a4c6d,
    0x3feedea64c123422,
    0xbc9312607a28698a,
    0x3feeda4504ac801c,
    0xbc58a78f4817895b,
    0x3feed60a21f72e2a,
    0xbc7c2c9b67499a1b,
    0x3feed1f5d950a897,
    0x3c4363ed60c2ac11,
    0x3feece086061892d,
    0x3c9666093b0664ef,
    0x3feeca41ed1d0057,
    0x3c6ecce1daa10379,
    0x3feec6a2b5c13cd0,
    0x3c93ff8e3f0f1230,
    0x3feec32af0d7d3de,
    0x3c7690cebb7aafb0,
    0x3feebfdad5362a27,
    0x3c931dbdeb54e077,
    0x3feebcb299fddd0d,
    0xbc8f94340071a38e,
    0x3feeb9b2769d2ca7,
    0xbc87deccdc93a349,
    0x3feeb6daa2cf6642,
    0xbc78dec6bd0f385f,
    0x3feeb42b569d4f82,
    0xbc861246ec7b5cf6,
    0x3feeb1a4ca5d920f,
    0x3c93350518fdd78e,
    0x3feeaf4736b527da,
    0x3c7b98b72f8a9b05,
    0x3feead12d497c7fd,
    0x3c9063e1e21c5409,
    0x3feeab07dd485429,
    0x3c34c7855019c6ea,
    0x3feea9268a5946b7,
    0x3c9432e62b64c035,
    0x3feea76f15ad2148,
    0xbc8ce44a6199769f,
    0x3feea5e1b976dc09,
    0xbc8c33c53bef4da8,
    0x3feea47eb03a5585,
    0xbc845378892be9ae,
    0x3feea34634ccc320,
    0xbc93cedd78565858,
    0x3feea23882552225,
    0x3c5710aa807e1964,
    0x3feea155d44ca973,
    0xbc93b3efbf5e2228,
    0x3feea09e667f3bcd,
    0xbc6a12ad8734b982,
    0x3feea012750bdabf,
    0xbc6367efb86da9ee,
    0x3fee9fb23c651a2f,
    0xbc80dc3d54e08851,
    0x3fee9f7df9519484,
    0xbc781f647e5a3ecf,
    0x3fee9f75e8ec5f74,
    0xbc86ee4ac08b7db0,
    0x3fee9f9a48a58174,
    0xbc8619321e55e68a,
    0x3fee9feb564267c9,
    0x3c909ccb5e09d4d3,
    0x3feea0694fde5d3f,
    0xbc7b32dcb94da51d,
    0x3feea11473eb0187,
    0x3c94ecfd5467c06b,
    0x3feea1ed0130c132,
    0x3c65ebe1abd66c55,
    0x3feea2f336cf4e62,
    0xbc88a1c52fb3cf42,
    0x3feea427543e1a12,
    0xbc9369b6f13b3734,
    0x3feea589994cce13,
    0xbc805e843a19ff1e,
    0x3feea71a4623c7ad,
    0xbc94d450d872576e,
    0x3feea8d99b4492ed,
    0x3c90ad675b0e8a00,
    0x3feeaac7d98a6699,
    0x3c8db72fc1f0eab4,
    0x3feeace5422aa0db,
    0xbc65b6609cc5e7ff,
    0x3feeaf3216b5448c,
    0x3c7bf68359f35f44,
    0x3feeb1ae99157736,
    0xbc93091fa71e3d83,
    0x3feeb45b0b91ffc6,
    0xbc5da9b88b6c1e29,
    0x3feeb737b0cdc5e5,
    0xbc6c23f97c90b959,
    0x3feeba44cbc8520f,
    0xbc92434322f4f9aa,
    0x3feebd829fde4e50,
    0xbc85ca6cd7668e4b,
    0x3feec0f170ca07ba,
    0x3c71affc2b91ce27,
    0x3feec49182a3f090,
    0x3c6dd235e10a73bb,
    0x3feec86319e32323,
    0xbc87c50422622263,
    0x3feecc667b5de565,
    0x3c8b1c86e3e231d5,
    0x3feed09bec4a2d33,
    0xbc91bbd1d3bcbb15,
    0x3feed503b23e255d,
    0x3c90cc319cee31d2,
    0x3feed99e1330b358,
    0x3c8469846e735ab3,
    0x3feede6b5579fdbf,
    0xbc82dfcd978e9db4,
    0x3feee36bbfd3f37a,
    0x3c8c1a7792cb3387,
    0x3feee89f995ad3ad,
    0xbc907b8f4ad1d9fa,
    0x3feeee07298db666,
    0xbc55c3d956dcaeba,
    0x3feef3a2b84f15fb,
    0xbc90a40e3da6f640,
    0x3feef9728de5593a,
    0xbc68d6f438ad9334,
    0x3feeff76f2fb5e47,
    0xbc91eee26b588a35,
    0x3fef05b030a1064a,
    0x3c74ffd70a5fddcd,
    0x3fef0c1e904bc1d2,
    0xbc91bdfbfa9298ac,
    0x3fef12c25bd71e09,
    0x3c736eae30af0cb3,
    0x3fef199bdd85529c,
    0x3c8ee3325c9ffd94,
    0x3fef20ab5fffd07a,
    0x3c84e08fd10959ac,
    0x3fef27f12e57d14b,
    0x3c63cdaf384e1a67,
    0x3fef2f6d9406e7b5,
    0x3c676b2c6c921968,
    0x3fef3720dcef9069,
    0xbc808a1883ccb5d2,
    0x3fef3f0b555dc3fa,
    0xbc8fad5d3ffffa6f,
    0x3fef472d4a07897c,
    0xbc900dae3875a949,
    0x3fef4f87080d89f2,
    0x3c74a385a63d07a7,
    0x3fef5818dcfba487,
    0xbc82919e2040220f,
    0x3fef60e316c98398,
    0x3c8e5a50d5c192ac,
    0x3fef69e603db3285,
    0x3c843a59ac016b4b,
    0x3fef7321f301b460,
    0xbc82d52107b43e1f,
    0x3fef7c97337b9b5f,
    0xbc892ab93b470dc9,
    0x3fef864614f5a129,
    0x3c74b604603a88d3,
    0x3fef902ee78b3ff6,
    0x3c83c5ec519d7271,
    0x3fef9a51fbc74c83,
    0xbc8ff7128fd391f0,
    0x3fefa4afa2a490da,
    0xbc8dae98e223747d,
    0x3fefaf482d8e67f1,
    0x3c8ec3bc41aa2008,
    0x3fefba1bee615a27,
    0x3c842b94c3a9eb32,
    0x3fefc52b376bba97,
    0x3c8a64a931d185ee,
    0x3fefd0765b6e4540,
    0xbc8e37bae43be3ed,
    0x3fefdbfdad9cbe14,
    0x3c77893b4d91cd9d,
    0x3fefe7c1819e90d8,
    0x3c5305c14160cc89,
    0x3feff3c22b8f71f1,
];

/// `exp`'s constants: 128/ln(2), the rounding shift 1.5 * 2^52, -ln(2)/128
/// in a high and a low part, and the polynomial's C2..C5.
const EXP_INV_LN2_N: u64 = 0x40671547652b82fe;
const EXP_SHIFT: u64 = 0x4338000000000000;
const EXP_NEG_LN2_HI_N: u64 = 0xbf762e42fefa0000;
const EXP_NEG_LN2_LO_N: u64 = 0xbd0cf79abc9e3b3a;
const EXP_POLY: [u64; 4] =
    [0x3fdffffffffffdbd, 0x3fc555555555543c, 0x3fa55555cf172b91, 0x3f81111167a4d017];

/// `log`'s table: 128 pairs of (1/c, log(c)) for the subintervals of
/// [0x1.6p-1, 0x1.6p0).
const LOG_TABLE: [u64; 256] = [
    0x3ff734f0c3e0de9f,
    0xbfd7cc7f79e69000,
    0x3ff713786a2ce91f,
    0xbfd76feec20d0000,
    0x3ff6f26008fab5a0,
    0xbfd713e31351e000,
    0x3ff6d1a61f138c7d,
    0xbfd6b85b38287800,
    0x3ff6b1490bc5b4d1,
    0xbfd65d5590807800,
    0x3ff69147332f0cba,
    0xbfd602d076180000,
    0x3ff6719f18224223,
    0xbfd5a8ca86909000,
    0x3ff6524f99a51ed9,
    0xbfd54f4356035000,
    0x3ff63356aa8f24c4,
    0xbfd4f637c36b4000,
    0x3ff614b36b9ddc14,
    0xbfd49da7fda85000,
    0x3ff5f66452c65c4c,
    0xbfd445923989a800,
    0x3ff5d867b5912c4f,
    0xbfd3edf439b0b800,
    0x3ff5babccb5b90de,
    0xbfd396ce448f7000,
    0x3ff59d61f2d91a78,
    0xbfd3401e17bda000,
    0x3ff5805612465687,
    0xbfd2e9e2ef468000,
    0x3ff56397cee76bd3,
    0xbfd2941b3830e000,
    0x3ff54725e2a77f93,
    0xbfd23ec58cda8800,
    0x3ff52aff42064583,
    0xbfd1e9e129279000,
    0x3ff50f22dbb2bddf,
    0xbfd1956d2b48f800,
    0x3ff4f38f4734ded7,
    0xbfd141679ab9f800,
    0x3ff4d843cfde2840,
    0xbfd0edd094ef9800,
    0x3ff4bd3ec078a3c8,
    0xbfd09aa518db1000,
    0x3ff4a27fc3e0258a,
    0xbfd047e65263b800,
    0x3ff4880524d48434,
    0xbfcfeb224586f000,
    0x3ff46dce1b192d0b,
    0xbfcf474a7517b000,
    0x3ff453d9d3391854,
    0xbfcea4443d103000,
    0x3ff43a2744b4845a,
    0xbfce020d44e9b000,
    0x3ff420b54115f8fb,
    0xbfcd60a22977f000,
    0x3ff40782da3ef4b1,
    0xbfccc00104959000,
    0x3ff3ee8f5d57fe8f,
    0xbfcc202956891000,
    0x3ff3d5d9a00b4ce9,
    0xbfcb81178d811000,
    0x3ff3bd60c010c12b,
    0xbfcae2c9ccd3d000,
    0x3ff3a5242b75dab8,
    0xbfca45402e129000,
    0x3ff38d22cd9fd002,
    0xbfc9a877681df000,
    0x3ff3755bc5847a1c,
    0xbfc90c6d69483000,
    0x3ff35dce49ad36e2,
    0xbfc87120a645c000,
    0x3ff34679984dd440,
    0xbfc7d68fb4143000,
    0x3ff32f5cceffcb24,
    0xbfc73cb83c627000,
    0x3ff3187775a10d49,
    0xbfc6a39a9b376000,
    0x3ff301c8373e3990,
    0xbfc60b3154b7a000,
    0x3ff2eb4ebb95f841,
    0xbfc5737d76243000,
    0x3ff2d50a0219a9d1,
    0xbfc4dc7b8fc23000,
    0x3ff2bef9a8b7fd2a,
    0xbfc4462c51d20000,
    0x3ff2a91c7a0c1bab,
    0xbfc3b08abc830000,
    0x3ff293726014b530,
    0xbfc31b996b490000,
    0x3ff27dfa5757a1f5,
    0xbfc2875490a44000,
    0x3ff268b39b1d3bbf,
    0xbfc1f3b9f879a000,
    0x3ff2539d838ff5bd,
    0xbfc160c8252ca000,
    0x3ff23eb7aac9083b,
    0xbfc0ce7f57f72000,
    0x3ff22a012ba940b6,
    0xbfc03cdc49fea000,
    0x3ff2157996cc4132,
    0xbfbf57bdbc4b8000,
    0x3ff201201dd2fc9b,
    0xbfbe370896404000,
    0x3ff1ecf4494d480b,
    0xbfbd17983ef94000,
    0x3ff1d8f5528f6569,
    0xbfbbf9674ed8a000,
    0x3ff1c52311577e7c,
    0xbfbadc79202f6000,
    0x3ff1b17c74cb26e9,
    0xbfb9c0c3e7288000,
    0x3ff19e010c2c1ab6,
    0xbfb8a646b372c000,
    0x3ff18ab07bb670bd,
    0xbfb78d01b3ac0000,
    0x3ff1778a25efbcb6,
    0xbfb674f145380000,
    0x3ff1648d354c31da,
    0xbfb55e0e6d878000,
    0x3ff151b990275fdd,
    0xbfb4485cdea1e000,
    0x3ff13f0ea432d24c,
    0xbfb333d94d6aa000,
    0x3ff12c8b7210f9da,
    0xbfb22079f8c56000,
    0x3ff11a3028ecb531,
    0xbfb10e4698622000,
    0x3ff107fbda8434af,
    0xbfaffa6c6ad20000,
    0x3ff0f5ee0f4e6bb3,
    0xbfadda8d4a774000,
    0x3ff0e4065d2a9fce,
    0xbfabbcece4850000,
    0x3ff0d244632ca521,
    0xbfa9a1894012c000,
    0x3ff0c0a77ce2981a,
    0xbfa788583302c000,
    0x3ff0af2f83c636d1,
    0xbfa5715e67d68000,
    0x3ff09ddb98a01339,
    0xbfa35c8a49658000,
    0x3ff08cabaf52e7df,
    0xbfa149e364154000,
    0x3ff07b9f2f4e28fb,
    0xbf9e72c082eb8000,
    0x3ff06ab58c358f19,
    0xbf9a55f152528000,
    0x3ff059eea5ecf92c,
    0xbf963d62cf818000,
    0x3ff04949cdd12c90,
    0xbf9228fb8caa0000,
    0x3ff038c6c6f0ada9,
    0xbf8c317b20f90000,
    0x3ff02865137932a9,
    0xbf8419355daa0000,
    0x3ff0182427ea7348,
    0xbf781203c2ec0000,
    0x3ff008040614b195,
    0xbf60040979240000,
    0x3fefe01ff726fa1a,
    0x3f6feff384900000,
    0x3fefa11cc261ea74,
    0x3f87dc41353d0000,
    0x3fef6310b081992e,
    0x3f93cea3c4c28000,
    0x3fef25f63ceeadcd,
    0x3f9b9fc114890000,
    0x3feee9c8039113e7,
    0x3fa1b0d8ce110000,
    0x3feeae8078cbb1ab,
    0x3fa58a5bd001c000,
    0x3fee741aa29d0c9b,
    0x3fa95c8340d88000,
    0x3fee3a91830a99b5,
    0x3fad276aef578000,
    0x3fee01e009609a56,
    0x3fb07598e598c000,
    0x3fedca01e577bb98,
    0x3fb253f5e30d2000,
    0x3fed92f20b7c9103,
    0x3fb42edd8b380000,
    0x3fed5cac66fb5cce,
    0x3fb606598757c000,
    0x3fed272caa5ede9d,
    0x3fb7da76356a0000,
    0x3fecf26e3e6b2ccd,
    0x3fb9ab434e1c6000,
    0x3fecbe6da2a77902,
    0x3fbb78c7bb0d6000,
    0x3fec8b266d37086d,
    0x3fbd431332e72000,
    0x3fec5894bd5d5804,
    0x3fbf0a3171de6000,
    0x3fec26b533bb9f8c,
    0x3fc067152b914000,
    0x3febf583eeece73f,
    0x3fc147858292b000,
    0x3febc4fd75db96c1,
    0x3fc2266ecdca3000,
    0x3feb951e0c864a28,
    0x3fc303d7a6c55000,
    0x3feb65e2c5ef3e2c,
    0x3fc3dfc33c331000,
    0x3feb374867c9888b,
    0x3fc4ba366b7a8000,
    0x3feb094b211d304a,
    0x3fc5933928d1f000,
    0x3feadbe885f2ef7e,
    0x3fc66acd2418f000,
    0x3feaaf1d31603da2,
    0x3fc740f8ec669000,
    0x3fea82e63fd358a7,
    0x3fc815c0f51af000,
    0x3fea5740ef09738b,
    0x3fc8e92954f68000,
    0x3fea2c2a90ab4b27,
    0x3fc9bb3602f84000,
    0x3fea01a01393f2d1,
    0x3fca8bed1c2c0000,
    0x3fe9d79f24db3c1b,
    0x3fcb5b515c01d000,
    0x3fe9ae2505c7b190,
    0x3fcc2967ccbcc000,
    0x3fe9852ef297ce2f,
    0x3fccf635d5486000,
    0x3fe95cbaeea44b75,
    0x3fcdc1bd3446c000,
    0x3fe934c69de74838,
    0x3fce8c01b8cfe000,
    0x3fe90d4f2f6752e6,
    0x3fcf5509c0179000,
    0x3fe8e6528effd79d,
    0x3fd00e6c121fb800,
    0x3fe8bfce9fcc007c,
    0x3fd071b80e93d000,
    0x3fe899c0dabec30e,
    0x3fd0d46b9e867000,
    0x3fe87427aa2317fb,
    0x3fd13687334bd000,
    0x3fe84f00acb39a08,
    0x3fd1980d67234800,
    0x3fe82a49e8653e55,
    0x3fd1f8ffe0cc8000,
    0x3fe8060195f40260,
    0x3fd2595fd7636800,
    0x3fe7e22563e0a329,
    0x3fd2b9300914a800,
    0x3fe7beb377dcb5ad,
    0x3fd3187210436000,
    0x3fe79baa679725c2,
    0x3fd377266dec1800,
    0x3fe77907f2170657,
    0x3fd3d54ffbaf3000,
    0x3fe756cadbd6130c,
    0x3fd432eee32fe000,
];
/// `log`'s ln(2) in a high and a low part.
const LOG_LN2: [u64; 2] = [0x3fe62e42fefa3800, 0x3d2ef35793c76730];
/// `log`'s A0..A4 (away from 1).
const LOG_POLY: [u64; 5] = [
    0xbfe0000000000001,
    0x3fd555555551305b,
    0xbfcfffffffeb4590,
    0x3fc999b324f10111,
    0xbfc55575e506c89f,
];
/// `log`'s B0..B10 (near 1).
const LOG_POLY_NEAR_ONE: [u64; 11] = [
    0xbfe0000000000000,
    0x3fd5555555555577,
    0xbfcffffffffffdcb,
    0x3fc999999995dd0c,
    0xbfc55555556745a7,
    0x3fc24924a344de30,
    0xbfbfffffa4423d65,
    0x3fbc7184282ad6ca,
    0xbfb999eb43b068ff,
    0x3fb78182f7afd085,
    0xbfb5521375d145cd,
];
/// 2^27, which splits the near-one path's r into a high and a low part.
const LOG_SPLIT: u64 = 0x41a0000000000000;

/// `exp2f`'s constants (its table is `expf`'s): the rounding shift
/// 1.5 * 2^52 / 32 and the polynomial's C0..C2.
const EXP2F_SHIFT: u64 = 0x42e8000000000000;
const EXP2F_POLY: [u64; 3] = [0x3fac6af84b912394, 0x3fcebfce50fac4f3, 0x3fe62e42ff0c52d6];

/// `log2f`'s table: (1/c, log2(c)) for the 16 subintervals.
const LOG2F_TABLE: [[u64; 2]; 16] = [
    [0x3ff661ec79f8f3be, 0xbfdefec65b963019],
    [0x3ff571ed4aaf883d, 0xbfdb0b6832d4fca4],
    [0x3ff49539f0f010b0, 0xbfd7418b0a1fb77b],
    [0x3ff3c995b0b80385, 0xbfd39de91a6dcf7b],
    [0x3ff30d190c8864a5, 0xbfd01d9bf3f2b631],
    [0x3ff25e227b0b8ea0, 0xbfc97c1d1b3b7af0],
    [0x3ff1bb4a4a1a343f, 0xbfc2f9e393af3c9f],
    [0x3ff12358f08ae5ba, 0xbfb960cbbf788d5c],
    [0x3ff0953f419900a7, 0xbfaa6f9db6475fce],
    [0x3ff0000000000000, 0x0000000000000000],
    [0x3fee608cfd9a47ac, 0x3fb338ca9f24f53d],
    [0x3feca4b31f026aa0, 0x3fc476a9543891ba],
    [0x3feb2036576afce6, 0x3fce840b4ac4e4d2],
    [0x3fe9c2d163a1aa2d, 0x3fd40645f0c6651c],
    [0x3fe886e6037841ed, 0x3fd88e9c2c1b9ff8],
    [0x3fe767dcf5534862, 0x3fdce0a44eb17bcc],
];

/// `log2f`'s polynomial A0..A3.
const LOG2F_POLY: [u64; 4] =
    [0xbfd712b6f70a7e4d, 0x3fdecabf496832e0, 0xbfe715479ffae3de, 0x3ff715475f35c8b8];

/// `logf`'s table: (1/c, log(c)) for the 16 subintervals.
const LOGF_TABLE: [[u64; 2]; 16] = [
    [0x3ff661ec79f8f3be, 0xbfd57bf7808caade],
    [0x3ff571ed4aaf883d, 0xbfd2bef0a7c06ddb],
    [0x3ff49539f0f010b0, 0xbfd01eae7f513a67],
    [0x3ff3c995b0b80385, 0xbfcb31d8a68224e9],
    [0x3ff30d190c8864a5, 0xbfc6574f0ac07758],
    [0x3ff25e227b0b8ea0, 0xbfc1aa2bc79c8100],
    [0x3ff1bb4a4a1a343f, 0xbfba4e76ce8c0e5e],
    [0x3ff12358f08ae5ba, 0xbfb1973c5a611ccc],
    [0x3ff0953f419900a7, 0xbfa252f438e10c1e],
    [0x3ff0000000000000, 0x0000000000000000],
    [0x3fee608cfd9a47ac, 0x3faaa5aa5df25984],
    [0x3feca4b31f026aa0, 0x3fbc5e53aa362eb4],
    [0x3feb2036576afce6, 0x3fc526e57720db08],
    [0x3fe9c2d163a1aa2d, 0x3fcbc2860d224770],
    [0x3fe886e6037841ed, 0x3fd1058bc8a07ee1],
    [0x3fe767dcf5534862, 0x3fd4043057b6ee09],
];

/// `logf`'s constants: ln(2) and the polynomial's A0..A2.
const LOGF_LN2: u64 = 0x3fe62e42fefa39ef;
const LOGF_POLY: [u64; 3] = [0xbfd00ea348b88334, 0x3fd5575b0be00b6a, 0xbfdffffef20a4123];

/// An LLVM IR double literal of the bits `bits`.
fn double(bits: u64) -> String {
    format!("0x{bits:016X}")
}

/// The LLVM IR module text that defines `function`'s vector form of
/// `lanes` lanes as `@name` (with its table, and declarations of what it
/// calls). Without `vector_path` (a libm other than glibc's), every active
/// lane calls the scalar function.
pub fn exact_math_module(
    function: ExactMathFunction,
    lanes: u32,
    name: &str,
    vector_path: bool,
) -> String {
    let table = global_name(&format!("{name}.table"));
    let (ty_f, ty_d, ty_i32, ty_i64) = (
        format!("<{lanes} x float>"),
        format!("<{lanes} x double>"),
        format!("<{lanes} x i32>"),
        format!("<{lanes} x i64>"),
    );
    // An untyped constant operand: `splat (double 0x...)`.
    let splat = |ty: &str, value: &str| format!("splat ({} {value})", element(ty));
    let fma = format!("@llvm.fma.v{lanes}f64");
    let gather = format!("@llvm.masked.gather.v{lanes}i64.v{lanes}p0");
    // The argument's and the result's vector type.
    let elem = match function.element_type() {
        lanewise_ir::Type::F64 => "double",
        _ => "float",
    };
    let ty_x = format!("<{lanes} x {elem}>");
    let all_true = splat(&format!("<{lanes} x i1>"), "true");
    // The float exp family's start: `%xd` (x in double) and `%special`,
    // the lanes whose top 12 bits without the sign exceed `limit`.
    let expf_head = |limit: u32| {
        format!(
            "  %xd = fpext {ty_f} %x to {ty_d}
  %bits = bitcast {ty_f} %x to {ty_i32}
  %top = lshr {ty_i32} %bits, {splat_20}
  %abstop = and {ty_i32} %top, {splat_7ff}
  %special = icmp ugt {ty_i32} %abstop, {splat_limit}
",
            splat_20 = splat(&ty_i32, "20"),
            splat_7ff = splat(&ty_i32, "2047"),
            splat_limit = splat(&ty_i32, &limit.to_string()),
        )
    };
    // The float exp family after its reduction to `%ki` and `%r`: 2^(k/32)
    // from the table times 1 + C2 r + C1 r^2 + C0 r^3, rounded to float.
    let expf_tail = |poly: &[u64; 3]| {
        format!(
            "  %index = and {ty_i64} %ki, {splat_31}
  %entry.ptrs = getelementptr i64, ptr {table}, {ty_i64} %index
  %t = call {ty_i64} {gather}(<{lanes} x ptr> %entry.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %ki.shifted = shl {ty_i64} %ki, {splat_47}
  %s.bits = add {ty_i64} %t, %ki.shifted
  %s = bitcast {ty_i64} %s.bits to {ty_d}
  %z = call {ty_d} {fma}({ty_d} %r, {ty_d} {c0}, {ty_d} {c1})
  %r2 = fmul {ty_d} %r, %r
  %y0 = call {ty_d} {fma}({ty_d} %r, {ty_d} {c2}, {ty_d} {one})
  %y1 = call {ty_d} {fma}({ty_d} %z, {ty_d} %r2, {ty_d} %y0)
  %y = fmul {ty_d} %y1, %s
  %fast = fptrunc {ty_d} %y to {ty_f}
",
            splat_31 = splat(&ty_i64, "31"),
            splat_47 = splat(&ty_i64, "47"),
            c0 = splat(&ty_d, &double(poly[0])),
            c1 = splat(&ty_d, &double(poly[1])),
            c2 = splat(&ty_d, &double(poly[2])),
            one = splat(&ty_d, &double(1f64.to_bits())),
        )
    };
    // The float log family's reduction: x = 2^k z with z near 1, the table's
    // 1/c and log(c) (or log2(c)) of z's subinterval, `%r` = z/c - 1 (one
    // fused step), `%is.one` for x = 1.0 (log 0 exactly).
    let logf_reduction = || {
        format!(
            "  %ix = bitcast {ty_f} %x to {ty_i32}
  %is.one = icmp eq {ty_i32} %ix, {splat_one}
  %ix.less.min = sub {ty_i32} %ix, {splat_min_normal}
  %special = icmp uge {ty_i32} %ix.less.min, {splat_range}
  %tmp = sub {ty_i32} %ix, {splat_off}
  %tmp.high = lshr {ty_i32} %tmp, {splat_19}
  %i = and {ty_i32} %tmp.high, {splat_15}
  %k = ashr {ty_i32} %tmp, {splat_23}
  %tmp.exponent = and {ty_i32} %tmp, {splat_exponent_mask}
  %iz = sub {ty_i32} %ix, %tmp.exponent
  %i.wide = zext {ty_i32} %i to {ty_i64}
  %invc.index = shl {ty_i64} %i.wide, {splat_1}
  %logc.index = or disjoint {ty_i64} %invc.index, {splat_1}
  %invc.ptrs = getelementptr i64, ptr {table}, {ty_i64} %invc.index
  %logc.ptrs = getelementptr i64, ptr {table}, {ty_i64} %logc.index
  %invc.bits = call {ty_i64} {gather}(<{lanes} x ptr> %invc.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %logc.bits = call {ty_i64} {gather}(<{lanes} x ptr> %logc.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %invc = bitcast {ty_i64} %invc.bits to {ty_d}
  %logc = bitcast {ty_i64} %logc.bits to {ty_d}
  %z.single = bitcast {ty_i32} %iz to {ty_f}
  %z = fpext {ty_f} %z.single to {ty_d}
  %kd = sitofp {ty_i32} %k to {ty_d}
  %r = call {ty_d} {fma}({ty_d} %z, {ty_d} %invc, {ty_d} {minus_one})
",
            splat_one = splat(&ty_i32, "1065353216"),
            splat_min_normal = splat(&ty_i32, "8388608"),
            splat_range = splat(&ty_i32, "2130706432"),
            splat_off = splat(&ty_i32, "1060306944"),
            splat_19 = splat(&ty_i32, "19"),
            splat_15 = splat(&ty_i32, "15"),
            splat_23 = splat(&ty_i32, "23"),
            splat_exponent_mask = splat(&ty_i32, "-8388608"),
            splat_1 = splat(&ty_i64, "1"),
            minus_one = splat(&ty_d, &double((-1f64).to_bits())),
        )
    };
    let mut text = String::new();
    let body = match function {
        ExactMathFunction::Expf => {
            text.push_str(&table_global(&table, &EXPF_TABLE));
            // |x| >= 88 or NaN: top12(x) & 0x7ff > 0x42a.
            let reduction = format!(
                "  %kd.shifted = call {ty_d} {fma}({ty_d} {inv}, {ty_d} %xd, {ty_d} {shift})
  %ki = bitcast {ty_d} %kd.shifted to {ty_i64}
  %kd = fsub {ty_d} %kd.shifted, {shift}
  %kd.neg = fneg {ty_d} %kd
  %r = call {ty_d} {fma}({ty_d} {inv}, {ty_d} %xd, {ty_d} %kd.neg)
",
                inv = splat(&ty_d, &double(EXPF_INV_LN2_N)),
                shift = splat(&ty_d, &double(EXPF_SHIFT)),
            );
            expf_head(0x42a) + &reduction + &expf_tail(&EXPF_POLY)
        }
        ExactMathFunction::Logf => {
            text.push_str(&table_global(&table, &LOGF_TABLE.concat()));
            let tail = format!(
                "  %y0 = call {ty_d} {fma}({ty_d} %kd, {ty_d} {ln2}, {ty_d} %logc)
  %y1 = call {ty_d} {fma}({ty_d} %r, {ty_d} {a1}, {ty_d} {a2})
  %r2 = fmul {ty_d} %r, %r
  %y0.r = fadd {ty_d} %r, %y0
  %y2 = call {ty_d} {fma}({ty_d} %r2, {ty_d} {a0}, {ty_d} %y1)
  %y = call {ty_d} {fma}({ty_d} %r2, {ty_d} %y2, {ty_d} %y0.r)
  %narrow = fptrunc {ty_d} %y to {ty_f}
  %fast = select <{lanes} x i1> %is.one, {ty_f} zeroinitializer, {ty_f} %narrow
",
                ln2 = splat(&ty_d, &double(LOGF_LN2)),
                a0 = splat(&ty_d, &double(LOGF_POLY[0])),
                a1 = splat(&ty_d, &double(LOGF_POLY[1])),
                a2 = splat(&ty_d, &double(LOGF_POLY[2])),
            );
            logf_reduction() + &tail
        }
        ExactMathFunction::Exp2f => {
            text.push_str(&table_global(&table, &EXPF_TABLE));
            // |x| >= 128 or NaN: top12(x) & 0x7ff > 0x42f.
            let reduction = format!(
                "  %kd.shifted = fadd {ty_d} {shift}, %xd
  %ki = bitcast {ty_d} %kd.shifted to {ty_i64}
  %kd = fsub {ty_d} %kd.shifted, {shift}
  %r = fsub {ty_d} %xd, %kd
",
                shift = splat(&ty_d, &double(EXP2F_SHIFT)),
            );
            expf_head(0x42f) + &reduction + &expf_tail(&EXP2F_POLY)
        }
        ExactMathFunction::Log2f => {
            text.push_str(&table_global(&table, &LOG2F_TABLE.concat()));
            let tail = format!(
                "  %y0 = fadd {ty_d} %kd, %logc
  %a1.a2 = call {ty_d} {fma}({ty_d} %r, {ty_d} {a1}, {ty_d} {a2})
  %r2 = fmul {ty_d} %r, %r
  %p = call {ty_d} {fma}({ty_d} %r, {ty_d} {a3}, {ty_d} %y0)
  %y = call {ty_d} {fma}({ty_d} %r2, {ty_d} {a0}, {ty_d} %a1.a2)
  %sum = call {ty_d} {fma}({ty_d} %r2, {ty_d} %y, {ty_d} %p)
  %narrow = fptrunc {ty_d} %sum to {ty_f}
  %fast = select <{lanes} x i1> %is.one, {ty_f} zeroinitializer, {ty_f} %narrow
",
                a0 = splat(&ty_d, &double(LOG2F_POLY[0])),
                a1 = splat(&ty_d, &double(LOG2F_POLY[1])),
                a2 = splat(&ty_d, &double(LOG2F_POLY[2])),
                a3 = splat(&ty_d, &double(LOG2F_POLY[3])),
            );
            logf_reduction() + &tail
        }
        ExactMathFunction::Exp => {
            text.push_str(&table_global(&table, &EXP_TABLE));
            format!(
                "  %bits = bitcast {ty_d} %x to {ty_i64}
  %top = lshr {ty_i64} %bits, {splat_52}
  %abstop = and {ty_i64} %top, {splat_7ff}
  %abstop.less = sub {ty_i64} %abstop, {splat_3c9}
  %special = icmp ugt {ty_i64} %abstop.less, {splat_3e}
  %kd.shifted = call {ty_d} {fma}({ty_d} %x, {ty_d} {inv}, {ty_d} {shift})
  %ki = bitcast {ty_d} %kd.shifted to {ty_i64}
  %kd = fsub {ty_d} %kd.shifted, {shift}
  %r.high = call {ty_d} {fma}({ty_d} %kd, {ty_d} {neg_hi}, {ty_d} %x)
  %r = call {ty_d} {fma}({ty_d} %kd, {ty_d} {neg_lo}, {ty_d} %r.high)
  %ki.low = and {ty_i64} %ki, {splat_127}
  %tail.index = shl {ty_i64} %ki.low, {splat_1}
  %scale.index = or disjoint {ty_i64} %tail.index, {splat_1}
  %tail.ptrs = getelementptr i64, ptr {table}, {ty_i64} %tail.index
  %scale.ptrs = getelementptr i64, ptr {table}, {ty_i64} %scale.index
  %tail.bits = call {ty_i64} {gather}(<{lanes} x ptr> %tail.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %scale.base = call {ty_i64} {gather}(<{lanes} x ptr> %scale.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %tail = bitcast {ty_i64} %tail.bits to {ty_d}
  %ki.top = shl {ty_i64} %ki, {splat_45}
  %scale.bits = add {ty_i64} %scale.base, %ki.top
  %c2.c3 = call {ty_d} {fma}({ty_d} %r, {ty_d} {c3}, {ty_d} {c2})
  %tail.r = fadd {ty_d} %r, %tail
  %r2 = fmul {ty_d} %r, %r
  %c4.c5 = call {ty_d} {fma}({ty_d} %r, {ty_d} {c5}, {ty_d} {c4})
  %tmp.low = call {ty_d} {fma}({ty_d} %c2.c3, {ty_d} %r2, {ty_d} %tail.r)
  %r4 = fmul {ty_d} %r2, %r2
  %tmp = call {ty_d} {fma}({ty_d} %r4, {ty_d} %c4.c5, {ty_d} %tmp.low)
  %scale = bitcast {ty_i64} %scale.bits to {ty_d}
  %fast = call {ty_d} {fma}({ty_d} %scale, {ty_d} %tmp, {ty_d} %scale)
",
                splat_52 = splat(&ty_i64, "52"),
                splat_7ff = splat(&ty_i64, "2047"),
                splat_3c9 = splat(&ty_i64, "969"),
                splat_3e = splat(&ty_i64, "62"),
                splat_127 = splat(&ty_i64, "127"),
                splat_1 = splat(&ty_i64, "1"),
                splat_45 = splat(&ty_i64, "45"),
                inv = splat(&ty_d, &double(EXP_INV_LN2_N)),
                shift = splat(&ty_d, &double(EXP_SHIFT)),
                neg_hi = splat(&ty_d, &double(EXP_NEG_LN2_HI_N)),
                neg_lo = splat(&ty_d, &double(EXP_NEG_LN2_LO_N)),
                c2 = splat(&ty_d, &double(EXP_POLY[0])),
                c3 = splat(&ty_d, &double(EXP_POLY[1])),
                c4 = splat(&ty_d, &double(EXP_POLY[2])),
                c5 = splat(&ty_d, &double(EXP_POLY[3])),
            )
        }
        ExactMathFunction::Log => {
            text.push_str(&table_global(&table, &LOG_TABLE));
            let b = |i: usize| splat(&ty_d, &double(LOG_POLY_NEAR_ONE[i]));
            let a = |i: usize| splat(&ty_d, &double(LOG_POLY[i]));
            format!(
                "  %ix = bitcast {ty_d} %x to {ty_i64}
  %top = lshr {ty_i64} %ix, {splat_48}
  %top.less = sub {ty_i64} %top, {splat_16}
  %special = icmp ugt {ty_i64} %top.less, {splat_7fdf}
  %ix.less.lo = sub {ty_i64} %ix, {splat_lo}
  %near.one = icmp ult {ty_i64} %ix.less.lo, {splat_near_range}
  %is.one = icmp eq {ty_i64} %ix, {splat_one_bits}
  %tmp = sub {ty_i64} %ix, {splat_off}
  %tmp.high = lshr {ty_i64} %tmp, {splat_45}
  %i = and {ty_i64} %tmp.high, {splat_127}
  %invc.index = shl {ty_i64} %i, {splat_1}
  %logc.index = or disjoint {ty_i64} %invc.index, {splat_1}
  %invc.ptrs = getelementptr i64, ptr {table}, {ty_i64} %invc.index
  %logc.ptrs = getelementptr i64, ptr {table}, {ty_i64} %logc.index
  %invc.bits = call {ty_i64} {gather}(<{lanes} x ptr> %invc.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %logc.bits = call {ty_i64} {gather}(<{lanes} x ptr> %logc.ptrs, i32 8, <{lanes} x i1> {all_true}, {ty_i64} poison)
  %invc = bitcast {ty_i64} %invc.bits to {ty_d}
  %logc = bitcast {ty_i64} %logc.bits to {ty_d}
  %k = ashr {ty_i64} %tmp, {splat_52}
  %k.narrow = trunc {ty_i64} %k to {ty_i32}
  %kd = sitofp {ty_i32} %k.narrow to {ty_d}
  %tmp.exponent = and {ty_i64} %tmp, {splat_exponent_mask}
  %iz = sub {ty_i64} %ix, %tmp.exponent
  %z = bitcast {ty_i64} %iz to {ty_d}
  %w = call {ty_d} {fma}({ty_d} %kd, {ty_d} {ln2_hi}, {ty_d} %logc)
  %r = call {ty_d} {fma}({ty_d} %z, {ty_d} %invc, {ty_d} {minus_one})
  %a1.a2 = call {ty_d} {fma}({ty_d} %r, {ty_d} {a2}, {ty_d} {a1})
  %hi = fadd {ty_d} %r, %w
  %r2 = fmul {ty_d} %r, %r
  %w.less.hi = fsub {ty_d} %w, %hi
  %w.less.hi.r = fadd {ty_d} %w.less.hi, %r
  %lo = call {ty_d} {fma}({ty_d} %kd, {ty_d} {ln2_lo}, {ty_d} %w.less.hi.r)
  %r3 = fmul {ty_d} %r, %r2
  %a3.a4 = call {ty_d} {fma}({ty_d} %r, {ty_d} {a4}, {ty_d} {a3})
  %lo.a0 = call {ty_d} {fma}({ty_d} %r2, {ty_d} {a0}, {ty_d} %lo)
  %poly = call {ty_d} {fma}({ty_d} %a3.a4, {ty_d} %r2, {ty_d} %a1.a2)
  %y = call {ty_d} {fma}({ty_d} %r3, {ty_d} %poly, {ty_d} %lo.a0)
  %away = fadd {ty_d} %y, %hi
  %n.r = fsub {ty_d} %x, {one}
  %n.b1.b2 = call {ty_d} {fma}({ty_d} %n.r, {ty_d} {b2}, {ty_d} {b1})
  %n.b4.b5 = call {ty_d} {fma}({ty_d} %n.r, {ty_d} {b5}, {ty_d} {b4})
  %n.r2 = fmul {ty_d} %n.r, %n.r
  %n.b7.b8 = call {ty_d} {fma}({ty_d} %n.r, {ty_d} {b8}, {ty_d} {b7})
  %n.p1 = call {ty_d} {fma}({ty_d} %n.r2, {ty_d} {b3}, {ty_d} %n.b1.b2)
  %n.p4 = call {ty_d} {fma}({ty_d} %n.r2, {ty_d} {b6}, {ty_d} %n.b4.b5)
  %n.r3 = fmul {ty_d} %n.r, %n.r2
  %n.p7 = call {ty_d} {fma}({ty_d} %n.r2, {ty_d} {b9}, {ty_d} %n.b7.b8)
  %n.p7.b10 = call {ty_d} {fma}({ty_d} %n.r3, {ty_d} {b10}, {ty_d} %n.p7)
  %n.q4 = call {ty_d} {fma}({ty_d} %n.p7.b10, {ty_d} %n.r3, {ty_d} %n.p4)
  %n.poly = call {ty_d} {fma}({ty_d} %n.q4, {ty_d} %n.r3, {ty_d} %n.p1)
  %n.r.split = call {ty_d} {fma}({ty_d} %n.r, {ty_d} {split}, {ty_d} %n.r)
  %n.split.r = fmul {ty_d} {split}, %n.r
  %n.rhi = fsub {ty_d} %n.r.split, %n.split.r
  %n.rhi2 = fmul {ty_d} %n.rhi, %n.rhi
  %n.rlo = fsub {ty_d} %n.r, %n.rhi
  %n.hi = call {ty_d} {fma}({ty_d} %n.rhi2, {ty_d} {b0}, {ty_d} %n.r)
  %n.r.less.hi = fsub {ty_d} %n.r, %n.hi
  %n.r.rhi = fadd {ty_d} %n.r, %n.rhi
  %n.lo = call {ty_d} {fma}({ty_d} %n.rhi2, {ty_d} {b0}, {ty_d} %n.r.less.hi)
  %n.b0.rlo = fmul {ty_d} {b0}, %n.rlo
  %n.lo2 = call {ty_d} {fma}({ty_d} %n.b0.rlo, {ty_d} %n.r.rhi, {ty_d} %n.lo)
  %n.y = call {ty_d} {fma}({ty_d} %n.poly, {ty_d} %n.r3, {ty_d} %n.lo2)
  %n.result = fadd {ty_d} %n.hi, %n.y
  %near = select <{lanes} x i1> %is.one, {ty_d} zeroinitializer, {ty_d} %n.result
  %fast = select <{lanes} x i1> %near.one, {ty_d} %near, {ty_d} %away
",
                splat_48 = splat(&ty_i64, "48"),
                splat_16 = splat(&ty_i64, "16"),
                splat_7fdf = splat(&ty_i64, "32735"),
                splat_lo = splat(&ty_i64, &(0x3fee000000000000u64 as i64).to_string()),
                splat_near_range = splat(&ty_i64, &(0x3ff1090000000000u64 - 0x3fee000000000000u64).to_string()),
                splat_one_bits = splat(&ty_i64, &(0x3ff0000000000000u64 as i64).to_string()),
                splat_off = splat(&ty_i64, &(0x3fe6000000000000u64 as i64).to_string()),
                splat_45 = splat(&ty_i64, "45"),
                splat_127 = splat(&ty_i64, "127"),
                splat_1 = splat(&ty_i64, "1"),
                splat_52 = splat(&ty_i64, "52"),
                splat_exponent_mask = splat(&ty_i64, &(0xfff0000000000000u64 as i64).to_string()),
                ln2_hi = splat(&ty_d, &double(LOG_LN2[0])),
                ln2_lo = splat(&ty_d, &double(LOG_LN2[1])),
                minus_one = splat(&ty_d, &double((-1f64).to_bits())),
                one = splat(&ty_d, &double(1f64.to_bits())),
                split = splat(&ty_d, &double(LOG_SPLIT)),
                a0 = a(0), a1 = a(1), a2 = a(2), a3 = a(3), a4 = a(4),
                b0 = b(0), b1 = b(1), b2 = b(2), b3 = b(3), b4 = b(4), b5 = b(5),
                b6 = b(6), b7 = b(7), b8 = b(8), b9 = b(9), b10 = b(10),
            )
        }
    };
    let body = if vector_path {
        body
    } else {
        format!(
            "  %special = icmp eq <{lanes} x i1> %active, %active\n  %fast = freeze {ty_x} poison\n"
        )
    };
    let scalar = function.scalar_name();
    let symbol = global_name(name);
    let mask_int = format!("i{lanes}");
    write!(
        text,
        "
declare {elem} @{scalar}({elem})
declare {ty_d} {fma}({ty_d}, {ty_d}, {ty_d})
declare {ty_i64} {gather}(<{lanes} x ptr>, i32, <{lanes} x i1>, {ty_i64})
declare {mask_int} @llvm.cttz.{mask_int}({mask_int}, i1)

define weak_odr hidden {ty_x} {symbol}({ty_x} %x, <{lanes} x i1> %active) alwaysinline nounwind {{
entry:
{body}  %special.active = and <{lanes} x i1> %special, %active
  %special.bits = bitcast <{lanes} x i1> %special.active to {mask_int}
  %any.special = icmp ne {mask_int} %special.bits, 0
  br i1 %any.special, label %per.lane, label %done

per.lane:
  %left = phi {mask_int} [ %special.bits, %entry ], [ %left.next, %per.lane ]
  %partial = phi {ty_x} [ %fast, %entry ], [ %partial.next, %per.lane ]
  %lane = call {mask_int} @llvm.cttz.{mask_int}({mask_int} %left, i1 true)
  %lane.x = extractelement {ty_x} %x, {mask_int} %lane
  %lane.result = call {elem} @{scalar}({elem} %lane.x)
  %partial.next = insertelement {ty_x} %partial, {elem} %lane.result, {mask_int} %lane
  %left.less.one = sub {mask_int} %left, 1
  %left.next = and {mask_int} %left, %left.less.one
  %more = icmp ne {mask_int} %left.next, 0
  br i1 %more, label %per.lane, label %done

done:
  %result = phi {ty_x} [ %fast, %entry ], [ %partial.next, %per.lane ]
  ret {ty_x} %result
}}
"
    )
    .unwrap();
    text
}

/// The definition of the private constant table `table` (a quoted global
/// name) holding `entries`, cache-line aligned.
fn table_global(table: &str, entries: &[u64]) -> String {
    let values: Vec<String> = entries.iter().map(|bits| format!("i64 {bits}")).collect();
    format!(
        "{table} = private unnamed_addr constant [{} x i64] [{}], align 64\n",
        entries.len(),
        values.join(", ")
    )
}

/// `@"name"`: a global's name quoted, with `"`, `\\` and control bytes
/// escaped as LLVM's lexer reads them (`\\22`).
fn global_name(name: &str) -> String {
    let mut quoted = String::from("@\"");
    for byte in name.bytes() {
        if byte == b'"' || byte == b'\\' || !(0x20..0x7f).contains(&byte) {
            write!(quoted, "\\{byte:02X}").unwrap();
        } else {
            quoted.push(byte as char);
        }
    }
    quoted.push('"');
    quoted
}

/// The element type of an LLVM vector type's text: `double` of
/// `<8 x double>`.
fn element(vector_ty: &str) -> &str {
    vector_ty.trim_end_matches('>').rsplit(' ').next().unwrap_or(vector_ty)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tables and constants are glibc's: the expf table holds
    /// 2^(i/32) with the exponent bits of i/32 taken out, the logf table's
    /// log(c) is -log(1/c) to within rounding, and the polynomial
    /// coefficients are the Taylor terms they approximate.
    #[test]
    fn tables_are_the_functions_they_stand_for() {
        for (i, &bits) in EXPF_TABLE.iter().enumerate() {
            let value = f64::from_bits(bits + ((i as u64) << 47));
            let expected = (i as f64 / 32.0).exp2();
            assert!(
                (value - expected).abs() <= expected * 1e-15,
                "2^({i}/32): {value} vs {expected}"
            );
        }
        for &[invc, logc] in &LOGF_TABLE {
            let (invc, logc) = (f64::from_bits(invc), f64::from_bits(logc));
            assert!((logc + invc.ln()).abs() < 1e-15, "log(c) {logc} for 1/c {invc}");
        }
        assert_eq!(f64::from_bits(EXPF_INV_LN2_N), 32.0 / std::f64::consts::LN_2);
        assert_eq!(f64::from_bits(EXPF_SHIFT), 1.5 * 2f64.powi(52));
        assert_eq!(f64::from_bits(LOGF_LN2), std::f64::consts::LN_2);
        for i in 0..128u64 {
            let scale = f64::from_bits(EXP_TABLE[2 * i as usize + 1].wrapping_add(i << 45));
            let expected = (i as f64 / 128.0).exp2();
            assert!((scale - expected).abs() <= expected * 1e-15, "2^({i}/128)");
            assert!(f64::from_bits(EXP_TABLE[2 * i as usize]).abs() < 1e-16, "tail {i}");
        }
        assert_eq!(f64::from_bits(EXP_INV_LN2_N), 128.0 / std::f64::consts::LN_2);
        let neg_ln2_n = f64::from_bits(EXP_NEG_LN2_HI_N) + f64::from_bits(EXP_NEG_LN2_LO_N);
        assert_eq!(neg_ln2_n, -std::f64::consts::LN_2 / 128.0);
        let c = EXPF_POLY.map(f64::from_bits);
        let ln2 = std::f64::consts::LN_2;
        // Minimax coefficients: close to the Taylor terms, not equal.
        let close = |value: f64, taylor: f64| (value / taylor - 1.0).abs() < 1e-3;
        assert!(close(c[2], ln2 / 32.0));
        assert!(close(c[1], ln2 * ln2 / 2.0 / 1024.0));
        assert!(close(c[0], ln2.powi(3) / 6.0 / 32768.0));
        let a = LOGF_POLY.map(f64::from_bits);
        assert!((a[2] + 0.5).abs() < 1e-5 && (a[1] - 1.0 / 3.0).abs() < 1e-2);
        assert!((a[0] + 0.25).abs() < 1e-2);
    }

    #[test]
    fn module_text_names_the_function_and_its_width() {
        let name = ExactMathFunction::Logf.vector_name(8);
        let text = exact_math_module(ExactMathFunction::Logf, 8, &name, true);
        assert!(text.contains("define weak_odr hidden <8 x float> @\"__lanewise_logf_exact_v8\"("));
        assert!(text.contains("declare float @logf(float)"));
        assert!(text.contains("@llvm.fma.v8f64"));
        assert_eq!(element("<8 x double>"), "double");
        assert_eq!(global_name("a.b\"c"), "@\"a.b\\22c\"");
    }
}
