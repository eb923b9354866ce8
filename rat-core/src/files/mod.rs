//! The file tools, write_file and read_file (ratd-design.txt, Files and Read budget). Under construction (issue 4).
