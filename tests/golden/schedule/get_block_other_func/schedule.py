# func_name must name the function being scheduled
b = sch.get_block("Y", func_name="other")
