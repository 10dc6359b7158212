"""f32 soft-float: which routines an image links, their bit-exactness check, their bench."""
