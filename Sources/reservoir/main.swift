print("reservoir")
